// loader.c: see loader.h.

#include "loader.h"

#include <dlfcn.h>
#include <stdlib.h>

#define VM_ENTRY_POINTS(X)                                                 \
    X(vm_open) X(vm_close) X(vm_error) X(vm_signal) X(vm_get) X(vm_put)    \
    X(vm_port) X(vm_buffer) X(vm_cycle) X(vm_run_until) X(vm_run_until_any) \
    X(vm_run_frames) X(vm_trace_on) X(vm_trace_off) \
    X(vm_coverage_write) X(vm_mem_attach) X(vm_mem_map) X(vm_mem_run)

// Each field has the type of the shim.h function it points to.
struct vm_lib {
#define VM_FIELD(f) __typeof__(&f) f;
    VM_ENTRY_POINTS(VM_FIELD)
#undef VM_FIELD
};

const char* vm_load(const char* path, vm_lib** lib) {
    void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) return dlerror();
    vm_lib* l = calloc(1, sizeof *l);
    if (!l) return "out of memory";
#define VM_SYM(f)                                                           \
    if (!(l->f = (__typeof__(&f))dlsym(h, #f))) {                           \
        free(l);                                                            \
        return "no entry point " #f " (not a library built by vpi/build.mk?)"; \
    }
    VM_ENTRY_POINTS(VM_SYM)
#undef VM_SYM
    *lib = l;
    return NULL;
}

int32_t call_open(vm_lib* l, const char* clock) { return l->vm_open(clock); }
int32_t call_close(vm_lib* l) { return l->vm_close(); }
const char* call_error(vm_lib* l) { return l->vm_error(); }
int32_t call_signal(vm_lib* l, const char* name, vm_signal_info* info) {
    return l->vm_signal(name, info);
}
int32_t call_get(vm_lib* l, int32_t id, uint8_t* buf, uint32_t len) {
    return l->vm_get(id, buf, len);
}
int32_t call_put(vm_lib* l, int32_t id, const uint8_t* buf, uint32_t len) {
    return l->vm_put(id, buf, len);
}
int32_t call_port(vm_lib* l, int32_t id, int32_t dir, uint32_t* offset) {
    return l->vm_port(id, dir, offset);
}
uint8_t* call_buffer(vm_lib* l, int32_t dir, uint32_t* size) { return l->vm_buffer(dir, size); }
vm_result call_cycle(vm_lib* l, uint64_t n) { return l->vm_cycle(n); }
vm_result call_run_until(vm_lib* l, int32_t port, uint64_t mask, uint64_t value, uint64_t max) {
    return l->vm_run_until(port, mask, value, max);
}
vm_result call_run_until_any(vm_lib* l, const vm_cond* conds, int32_t n, uint64_t max) {
    return l->vm_run_until_any(conds, n, max);
}
vm_result call_run_frames(vm_lib* l, const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in,
                          uint32_t in_size, uint8_t* out, uint32_t out_size, uint64_t frames) {
    return l->vm_run_frames(conds, n, max, in, in_size, out, out_size, frames);
}
int32_t call_trace_on(vm_lib* l, const char* path) { return l->vm_trace_on(path); }
int32_t call_trace_off(vm_lib* l) { return l->vm_trace_off(); }
int32_t call_coverage_write(vm_lib* l, const char* path) { return l->vm_coverage_write(path); }
int32_t call_mem_attach(vm_lib* l, const vm_mem_ports* ports, vm_mem_state** state) {
    return l->vm_mem_attach(ports, state);
}
int32_t call_mem_map(vm_lib* l, uint64_t page, uint8_t* data) { return l->vm_mem_map(page, data); }
vm_result call_mem_run(vm_lib* l, const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in,
                       uint32_t in_size, uint8_t* out, uint32_t out_size, uint64_t frames) {
    return l->vm_mem_run(conds, n, max, in, in_size, out, out_size, frames);
}
