/*
 * loader.h: package vpi's view of libvmodel.so. The library is opened with
 * dlopen, so the Go package compiles and links without it; each library
 * gets one table of entry points, and these wrappers call through it (cgo
 * cannot call a C function pointer directly).
 */
#ifndef ARCALIS_VPI_LOADER_H
#define ARCALIS_VPI_LOADER_H

#include "shim.h"

typedef struct vm_lib vm_lib;

/* vm_load opens path and sets *lib; it returns NULL or a message. */
const char* vm_load(const char* path, vm_lib** lib);

int32_t call_open(vm_lib* l, const char* clock);
int32_t call_close(vm_lib* l);
const char* call_error(vm_lib* l);
int32_t call_signal(vm_lib* l, const char* name, vm_signal_info* info);
int32_t call_get(vm_lib* l, int32_t id, uint8_t* buf, uint32_t len);
int32_t call_put(vm_lib* l, int32_t id, const uint8_t* buf, uint32_t len);
int32_t call_port(vm_lib* l, int32_t id, int32_t dir, uint32_t* offset);
uint8_t* call_buffer(vm_lib* l, int32_t dir, uint32_t* size);
vm_result call_cycle(vm_lib* l, uint64_t n);
vm_result call_run_until(vm_lib* l, int32_t port, uint64_t mask, uint64_t value, uint64_t max);
vm_result call_run_until_any(vm_lib* l, const vm_cond* conds, int32_t n, uint64_t max);
vm_result call_run_frames(vm_lib* l, const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in,
                          uint32_t in_size, uint8_t* out, uint32_t out_size, uint64_t frames);
int32_t call_trace_on(vm_lib* l, const char* path);
int32_t call_trace_off(vm_lib* l);
int32_t call_coverage_write(vm_lib* l, const char* path);
int32_t call_mem_attach(vm_lib* l, const vm_mem_ports* ports, vm_mem_state** state);
int32_t call_mem_map(vm_lib* l, uint64_t page, uint8_t* data);
vm_result call_mem_run(vm_lib* l, const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in,
                       uint32_t in_size, uint8_t* out, uint32_t out_size, uint64_t frames);

#endif
