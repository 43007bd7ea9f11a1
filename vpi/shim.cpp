//go:build ignore

// shim.cpp implements shim.h over a Verilated model built with
// --prefix Vmodel --vpi --trace-fst. vpi/lib.mk compiles it with the model's
// flags; the build constraint above keeps cgo from compiling it into the Go
// package, which loads the finished library with dlopen instead.
//
// Signals are resolved once through VPI (vpi_handle_by_name, vpiSize); the
// fast path then reads and writes the data pointers found in the public
// symbol table (VerilatedScope::varFind(...)->datap()), never VPI.

#include "shim.h"

#include "Vmodel.h"
#include "verilated.h"
#include "verilated_fst_c.h"
#include "verilated_syms.h"
#include "verilated_vpi.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

#include <pthread.h>

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// Context time added per half clock period: the rising edge of cycle k
// (counting from 0) is at time 10k+5 in the model's time precision.
constexpr uint64_t kHalfPeriod = 5;

// VPI's vpi_get_value keeps vectors in a fixed pool and aborts the process
// for vectors of VL_VALUE_STRING_MAX_WORDS words or more.
constexpr uint32_t kMaxSlowWords = VL_VALUE_STRING_MAX_WORDS - 1;

struct Signal {
    std::string name;
    vpiHandle handle = nullptr;
    void* datap = nullptr;
    VerilatedVarType type = VLVT_UNKNOWN;
    uint32_t width = 0;
    bool writable = false;
    int32_t direction = 0;
    int32_t port[2] = {-1, -1};  // index in each direction's port table
};

// A fast-path port: where its value lives in the model and in the buffer.
struct Port {
    void* datap;
    VerilatedVarType type;
    uint32_t offset;  // bytes into the buffer; a multiple of 8
    uint32_t words;   // VLVT_WDATA: 32-bit words
    uint64_t mask;    // value mask; for VLVT_WDATA, of the top word
};

// One port's per-cycle copy, for ports of storage type T (not VLVT_WDATA).
template <typename T>
struct Copy {
    T* datap;
    uint32_t offset;
    T mask;
};

// The per-cycle copies of one direction, grouped by storage type so that
// each loop is a run of plain loads and stores.
struct Plan {
    std::vector<Copy<CData>> c8;
    std::vector<Copy<SData>> c16;
    std::vector<Copy<IData>> c32;
    std::vector<Copy<QData>> c64;
    std::vector<Port> wide;
};

// The line memory (vm_mem_*): its ports, its state and its page table.
struct LineMem {
    // The ports as registered: vm_mem_run reads and writes the model's
    // storage, not the port buffers.
    Port ldReqReady, ldRspValid, ldRspTag, ldRspData, ldRspErr;
    Port stReqReady, stAckValid, stAckTag;
    Port ldReqValid, ldReqAddr, ldReqTag;
    Port stReqValid, stReqAddr, stReqTag, stReqData, stReqStrb;
    Port watch[2];
    bool watched[2] = {false, false};
    // The 1-bit ports' storage (a CData for any 1-bit signal): read and
    // written every cycle, without put's and get's switch on the type.
    CData *ldReqReadyBit, *ldRspValidBit, *ldRspErrBit, *stReqReadyBit, *stAckValidBit;
    const CData *ldReqValidBit, *stReqValidBit;
    // The other ports: what a cycle copies between a frame and the model
    // besides what the line memory drives and reads itself (memPlans).
    Plan other[2];
    size_t planned[2] = {~size_t{0}, ~size_t{0}};  // the port counts they were made for
    vm_mem_state state;
    std::unordered_map<uint64_t, uint8_t*> pages;
    // The two pages last used: a request's loads walk one buffer while its
    // stores walk another.
    uint64_t lastPage[2] = {~uint64_t{0}, ~uint64_t{0}};
    uint8_t* last[2] = {nullptr, nullptr};
};

struct Sim {
    // Declaration order is destruction order reversed: the model must go
    // before its context.
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<Vmodel> model;
    std::unique_ptr<VerilatedFstC> trace;
    pthread_t owner;
    CData* clk = nullptr;
    uint64_t cycles = 0;
    std::vector<Signal> signals;
    std::map<std::string, int32_t> ids;
    std::vector<Port> ports[2];
    Plan plan[2];
    std::vector<uint64_t> buf[2];  // 8-byte words, so every slot is aligned
    std::unique_ptr<LineMem> mem;
};

Sim* g_sim = nullptr;
thread_local std::string t_err;

int32_t fail(int32_t code, const char* fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    t_err = msg;
    return code;
}

// check guards every entry point: a model is open and this is its thread
// (one pthread_self and one compare).
int32_t check() {
    if (!g_sim) return fail(VM_ENOTOPEN, "no model is open");
    if (!pthread_equal(pthread_self(), g_sim->owner)) {
        return fail(VM_ETHREAD, "called from a thread other than the one that opened the model");
    }
    return VM_OK;
}

std::string vpiMessage() {
    s_vpi_error_info info;
    if (vpi_chk_error(&info) && info.message) return info.message;
    return "";
}

uint64_t mask64(uint32_t bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

uint32_t storageBytes(VerilatedVarType type, uint32_t width) {
    switch (type) {
    case VLVT_UINT8: return 1;
    case VLVT_UINT16: return 2;
    case VLVT_UINT32: return 4;
    case VLVT_UINT64: return 8;
    case VLVT_WDATA: return VL_WORDS_I(width) * 4;
    default: return 0;
    }
}

template <typename T>
inline void storeMasked(void* datap, const uint8_t* src, uint64_t mask) {
    T v;
    std::memcpy(&v, src, sizeof v);
    *static_cast<T*>(datap) = static_cast<T>(v & mask);
}

// copyBuffer copies a port buffer or a frame (whole 8-byte words) in
// inlined 32-byte pieces. Calls to memcpy in the per-cycle and per-call
// paths cost about 10 ns per cycle and 50 ns per call (measured with
// bench's TimeCalls split); the attribute keeps GCC from turning the loops
// back into such calls.
__attribute__((optimize("no-tree-loop-distribute-patterns"))) inline void copyBuffer(uint8_t* dst, const uint8_t* src,
                                                                                      uint32_t n) {
    for (; n >= 32; n -= 32, dst += 32, src += 32) std::memcpy(dst, src, 32);
    for (; n >= 8; n -= 8, dst += 8, src += 8) std::memcpy(dst, src, 8);
}

// copyWords copies a wide port's 32-bit words, without a call to memcpy
// either: a cache line's 16 words, the common case, as one constant-size
// copy.
__attribute__((optimize("no-tree-loop-distribute-patterns"))) inline void copyWords(void* dst, const void* src,
                                                                                     uint32_t words) {
    if (words == 16) {
        std::memcpy(dst, src, 64);
        return;
    }
    uint8_t* d = static_cast<uint8_t*>(dst);
    const uint8_t* p = static_cast<const uint8_t*>(src);
    for (uint32_t i = 0; i < words; ++i) std::memcpy(d + 4 * i, p + 4 * i, 4);
}

inline void toModel(const Port& p, const uint8_t* base) {
    const uint8_t* src = base + p.offset;
    switch (p.type) {
    case VLVT_UINT8: storeMasked<CData>(p.datap, src, p.mask); break;
    case VLVT_UINT16: storeMasked<SData>(p.datap, src, p.mask); break;
    case VLVT_UINT32: storeMasked<IData>(p.datap, src, p.mask); break;
    case VLVT_UINT64: storeMasked<QData>(p.datap, src, p.mask); break;
    case VLVT_WDATA: {
        EData* d = static_cast<EData*>(p.datap);
        copyWords(d, src, p.words);
        d[p.words - 1] &= static_cast<EData>(p.mask);
        break;
    }
    default: break;
    }
}

inline void fromModel(const Port& p, uint8_t* base) {
    uint8_t* dst = base + p.offset;
    switch (p.type) {
    case VLVT_UINT8: std::memcpy(dst, p.datap, 1); break;
    case VLVT_UINT16: std::memcpy(dst, p.datap, 2); break;
    case VLVT_UINT32: std::memcpy(dst, p.datap, 4); break;
    case VLVT_UINT64: std::memcpy(dst, p.datap, 8); break;
    case VLVT_WDATA: copyWords(dst, p.datap, p.words); break;
    default: break;
    }
}

inline uint8_t* bytes(Sim* s, int dir) { return reinterpret_cast<uint8_t*>(s->buf[dir].data()); }

inline void evalAndDump(Sim* s) {
    s->model->eval();
    if (VL_UNLIKELY(s->trace)) s->trace->dump(s->ctx->time());
}

template <typename T>
void addCopy(std::vector<Copy<T>>& v, const Port& p) {
    v.push_back(Copy<T>{static_cast<T*>(p.datap), p.offset, static_cast<T>(p.mask)});
}

void addToPlan(Plan& plan, const Port& p) {
    switch (p.type) {
    case VLVT_UINT8: addCopy(plan.c8, p); break;
    case VLVT_UINT16: addCopy(plan.c16, p); break;
    case VLVT_UINT32: addCopy(plan.c32, p); break;
    case VLVT_UINT64: addCopy(plan.c64, p); break;
    default: plan.wide.push_back(p); break;
    }
}

// Slots are at least 8 bytes: reading sizeof(T) from the start of one reads
// its low bytes (little-endian), as toModel does.
template <typename T>
inline void copyIn(const std::vector<Copy<T>>& v, const uint8_t* in) {
    for (const Copy<T>& c : v) {
        T x;
        std::memcpy(&x, in + c.offset, sizeof x);
        *c.datap = static_cast<T>(x & c.mask);
    }
}

template <typename T>
inline void copyOut(const std::vector<Copy<T>>& v, uint8_t* out) {
    for (const Copy<T>& c : v) std::memcpy(out + c.offset, c.datap, sizeof(T));
}

inline void planIn(const Plan& p, const uint8_t* in) {
    copyIn(p.c8, in);
    copyIn(p.c16, in);
    copyIn(p.c32, in);
    copyIn(p.c64, in);
    for (const Port& w : p.wide) toModel(w, in);
}

inline void planOut(const Plan& p, uint8_t* out) {
    copyOut(p.c8, out);
    copyOut(p.c16, out);
    copyOut(p.c32, out);
    copyOut(p.c64, out);
    for (const Port& w : p.wide) fromModel(w, out);
}

// step runs one cycle with the inputs laid out at in and leaves the
// pre-edge sample at out (by default the two port buffers).
inline void step(Sim* s, const uint8_t* in, uint8_t* out) {
    planIn(s->plan[VM_IN], in);
    *s->clk = 0;
    evalAndDump(s);
    planOut(s->plan[VM_OUT], out);
    s->ctx->timeInc(kHalfPeriod);
    *s->clk = 1;
    evalAndDump(s);
    s->ctx->timeInc(kHalfPeriod);
    ++s->cycles;
}

inline void step(Sim* s) { step(s, bytes(s, VM_IN), bytes(s, VM_OUT)); }

// checkConds validates a condition list against the output ports.
int32_t checkConds(const Sim* s, const vm_cond* conds, int32_t n) {
    if (n < 0 || (n > 0 && !conds)) return fail(VM_EINVAL, "bad condition list");
    const size_t outs = s->ports[VM_OUT].size();
    for (int32_t k = 0; k < n; ++k) {
        if (conds[k].port < 0 || static_cast<size_t>(conds[k].port) >= outs) {
            return fail(VM_EINVAL, "condition %d: bad output port %d", k, conds[k].port);
        }
    }
    return VM_OK;
}

// checkFrames checks the frames of a vm_run_frames or vm_mem_run call:
// laid out like the port buffers, and there if any are asked for.
int32_t checkFrames(const Sim* s, const uint8_t* in, uint32_t in_size, const uint8_t* out, uint32_t out_size,
                    uint64_t frames) {
    const uint32_t inBytes = static_cast<uint32_t>(s->buf[VM_IN].size() * 8);
    const uint32_t outBytes = static_cast<uint32_t>(s->buf[VM_OUT].size() * 8);
    if (in_size != inBytes || out_size != outBytes) {
        return fail(VM_EINVAL, "frames of %u and %u bytes, but the port buffers are %u and %u bytes", in_size, out_size,
                    inBytes, outBytes);
    }
    if (frames > 0 && ((inBytes > 0 && !in) || (outBytes > 0 && !out))) return fail(VM_EINVAL, "no frame buffer");
    return VM_OK;
}

// met reports whether condition c holds for its port's value v.
inline bool met(const vm_cond& c, uint64_t v) { return ((v & c.mask) == c.value) != (c.ne != 0); }

// inWindow reports whether condition c is checked on the call's cycle i
// (counting from 0): its before and from.
inline bool inWindow(const vm_cond& c, uint64_t i) { return (c.before == 0 || i < c.before) && i >= c.from; }

// holds reports whether condition c holds on the sample at out.
inline bool holds(const Sim* s, const vm_cond& c, const uint8_t* out) {
    uint64_t v;
    std::memcpy(&v, out + s->ports[VM_OUT][c.port].offset, sizeof v);
    return met(c, v);
}

// anyHolds reports whether any condition holds on the sample at out, that
// of the call's cycle i (counting from 0).
inline bool anyHolds(const Sim* s, const vm_cond* conds, int32_t n, const uint8_t* out, uint64_t i) {
    for (int32_t k = 0; k < n; ++k) {
        if (inWindow(conds[k], i) && holds(s, conds[k], out)) return true;
    }
    return false;
}

int32_t finished() {
    return fail(VM_EFINISHED, "the design ran $finish or $stop (at cycle %llu); it will not advance",
                static_cast<unsigned long long>(g_sim->cycles));
}

void destroy(Sim* s) {
    if (s->trace) {
        s->trace->close();
        s->trace.reset();
    }
    for (Signal& sig : s->signals) {
        if (sig.handle) vpi_release_handle(sig.handle);
    }
    s->model.reset();
    s->ctx.reset();
    delete s;
}

// slowSignal checks a vm_get or vm_put call (op names its VPI routine):
// the model's thread, the signal id, a buffer of the signal's size, and a
// width VPI's vector pool takes.
int32_t slowSignal(int32_t id, uint32_t len, const char* op, const Signal** out) {
    if (int32_t rc = check()) return rc;
    Sim* s = g_sim;
    if (id < 0 || static_cast<size_t>(id) >= s->signals.size()) return fail(VM_EINVAL, "bad signal id %d", id);
    const Signal& sig = s->signals[id];
    if (len != VL_BYTES_I(sig.width)) return fail(VM_EINVAL, "buffer is %u bytes, want %u", len, VL_BYTES_I(sig.width));
    if (VL_WORDS_I(sig.width) > kMaxSlowWords) return fail(VM_EUNSUPPORTED, "%u bits is too wide for %s", sig.width, op);
    *out = &sig;
    return VM_OK;
}

// ---- The line memory (vm_mem_*) ----
//
// Mechanism only: a queue that answers each request state.delay edges
// after the edge that took it, line access to the caller's pages, and a
// log of every request, answer and watched change with its edge. What a
// request may touch, what is a violation, what is counted: the caller
// judges all of it from the log (tb.Memory).

// memLine returns the line at addr (line aligned) in the mapped page, or
// nullptr if the page is not mapped. way is the page cache's entry to use
// first: 0 for loads, 1 for stores.
inline uint8_t* memLine(LineMem* m, uint64_t addr, int way) {
    const uint64_t page = addr / VM_MEM_PAGE;
    for (int k = 0; k < 2; ++k) {
        const int w = way ^ k;
        if (m->lastPage[w] == page) return m->last[w] + addr % VM_MEM_PAGE;
    }
    auto it = m->pages.find(page);
    if (it == m->pages.end()) return nullptr;
    m->lastPage[way] = page;
    m->last[way] = it->second;
    return it->second + addr % VM_MEM_PAGE;
}

// What a line memory port must be.
enum { kBit, kWord, kLine };

// memPorts gives m the ports of ps if each is of its direction and width
// (valid, ready and err 1 bit, data a cache line, the rest at most 64
// bits), and changes nothing if one is not.
int32_t memPorts(const Sim* s, const vm_mem_ports& ps, LineMem* m) {
    struct Want {
        int32_t port;
        int dir;
        int kind;  // kBit, kWord (at most 64 bits) or kLine
        Port* p;
        const char* name;
    } wants[] = {
        {ps.ld_req_ready, VM_IN, kBit, &m->ldReqReady, "ld_req_ready"},
        {ps.ld_rsp_valid, VM_IN, kBit, &m->ldRspValid, "ld_rsp_valid"},
        {ps.ld_rsp_tag, VM_IN, kWord, &m->ldRspTag, "ld_rsp_tag"},
        {ps.ld_rsp_data, VM_IN, kLine, &m->ldRspData, "ld_rsp_data"},
        {ps.ld_rsp_err, VM_IN, kBit, &m->ldRspErr, "ld_rsp_err"},
        {ps.st_req_ready, VM_IN, kBit, &m->stReqReady, "st_req_ready"},
        {ps.st_ack_valid, VM_IN, kBit, &m->stAckValid, "st_ack_valid"},
        {ps.st_ack_tag, VM_IN, kWord, &m->stAckTag, "st_ack_tag"},
        {ps.ld_req_valid, VM_OUT, kBit, &m->ldReqValid, "ld_req_valid"},
        {ps.ld_req_addr, VM_OUT, kWord, &m->ldReqAddr, "ld_req_addr"},
        {ps.ld_req_tag, VM_OUT, kWord, &m->ldReqTag, "ld_req_tag"},
        {ps.st_req_valid, VM_OUT, kBit, &m->stReqValid, "st_req_valid"},
        {ps.st_req_addr, VM_OUT, kWord, &m->stReqAddr, "st_req_addr"},
        {ps.st_req_tag, VM_OUT, kWord, &m->stReqTag, "st_req_tag"},
        {ps.st_req_data, VM_OUT, kLine, &m->stReqData, "st_req_data"},
        {ps.st_req_strb, VM_OUT, kWord, &m->stReqStrb, "st_req_strb"},
    };
    for (const Want& w : wants) {  // check all first
        if (w.port < 0 || static_cast<size_t>(w.port) >= s->ports[w.dir].size()) {
            return fail(VM_EINVAL, "line memory port %s: bad %s port %d", w.name, w.dir == VM_IN ? "input" : "output",
                        w.port);
        }
        const Port& p = s->ports[w.dir][w.port];
        const bool line = p.type == VLVT_WDATA && p.words * 4 == VM_MEM_LINE;
        const bool bit = p.type == VLVT_UINT8 && p.mask == 1;
        if ((w.kind == kLine) != line || (w.kind == kWord && p.type == VLVT_WDATA) || (w.kind == kBit && !bit)) {
            return fail(VM_EINVAL, "line memory port %s: %s", w.name,
                        w.kind == kLine ? "not a cache line wide" : w.kind == kBit ? "not 1 bit wide" : "wider than 64 bits");
        }
    }
    for (int k = 0; k < 2; ++k) {
        if (ps.watch[k] >= 0 && static_cast<size_t>(ps.watch[k]) >= s->ports[VM_OUT].size()) {
            return fail(VM_EINVAL, "line memory watch port %d: bad output port %d", k, ps.watch[k]);
        }
    }
    for (const Want& w : wants) *w.p = s->ports[w.dir][w.port];
    m->ldReqReadyBit = static_cast<CData*>(m->ldReqReady.datap);
    m->ldRspValidBit = static_cast<CData*>(m->ldRspValid.datap);
    m->ldRspErrBit = static_cast<CData*>(m->ldRspErr.datap);
    m->stReqReadyBit = static_cast<CData*>(m->stReqReady.datap);
    m->stAckValidBit = static_cast<CData*>(m->stAckValid.datap);
    m->ldReqValidBit = static_cast<const CData*>(m->ldReqValid.datap);
    m->stReqValidBit = static_cast<const CData*>(m->stReqValid.datap);
    for (int k = 0; k < 2; ++k) {
        m->watched[k] = ps.watch[k] >= 0;
        if (m->watched[k]) m->watch[k] = s->ports[VM_OUT][ps.watch[k]];
    }
    m->planned[VM_IN] = m->planned[VM_OUT] = ~size_t{0};  // memPlans anew
    return VM_OK;
}

// memPlans makes m->other for the ports registered now.
void memPlans(const Sim* s, LineMem* m) {
    if (m->planned[VM_IN] == s->ports[VM_IN].size() && m->planned[VM_OUT] == s->ports[VM_OUT].size()) return;
    const Port* mine[] = {&m->ldReqReady, &m->ldRspValid, &m->ldRspTag, &m->ldRspData, &m->ldRspErr, &m->stReqReady,
                          &m->stAckValid, &m->stAckTag, &m->ldReqValid, &m->ldReqAddr, &m->ldReqTag, &m->stReqValid,
                          &m->stReqAddr, &m->stReqTag, &m->stReqData, &m->stReqStrb};
    for (int dir : {VM_IN, VM_OUT}) {
        m->other[dir] = Plan{};
        for (const Port& p : s->ports[dir]) {
            bool own = false;
            for (const Port* q : mine) own = own || q->datap == p.datap;
            if (!own) addToPlan(m->other[dir], p);
        }
        m->planned[dir] = s->ports[dir].size();
    }
}

// get reads a port's value, its low 64 bits, from the model.
inline uint64_t get(const Port& p) {
    switch (p.type) {
    case VLVT_UINT8: return *static_cast<const CData*>(p.datap);
    case VLVT_UINT16: return *static_cast<const SData*>(p.datap);
    case VLVT_UINT32: return *static_cast<const IData*>(p.datap);
    case VLVT_UINT64: return *static_cast<const QData*>(p.datap);
    default: {  // VLVT_WDATA: more than 64 bits, so at least three words
        uint64_t v;
        std::memcpy(&v, p.datap, sizeof v);
        return v;
    }
    }
}

// put writes v to a port of at most 64 bits in the model.
inline void put(const Port& p, uint64_t v) {
    switch (p.type) {
    case VLVT_UINT8: *static_cast<CData*>(p.datap) = static_cast<CData>(v & p.mask); break;
    case VLVT_UINT16: *static_cast<SData*>(p.datap) = static_cast<SData>(v & p.mask); break;
    case VLVT_UINT32: *static_cast<IData*>(p.datap) = static_cast<IData>(v & p.mask); break;
    case VLVT_UINT64: *static_cast<QData*>(p.datap) = static_cast<QData>(v & p.mask); break;
    default: break;
    }
}

// kMemConds bounds vm_mem_run's conditions.
constexpr int32_t kMemConds = 32;

// kCycleEvents is the most a cycle logs: two requests, two answers, two
// watched changes.
constexpr uint32_t kCycleEvents = 6;

// logEvent appends an event to the state's log (vm_mem_run keeps room for
// a whole cycle's).
inline void logEvent(vm_mem_state& st, uint32_t kind, uint64_t edge, uint64_t addr, uint64_t tag, uint64_t strb) {
    vm_mem_event& e = st.log[st.nlog++];
    e.edge = edge, e.addr = addr, e.tag = tag, e.strb = strb, e.kind = kind, e.pad = 0;
}

// memDrive sets the line memory's inputs in the model for the cycle of
// edge now: the oldest answer of each queue if it is due, both ports
// ready. (The data port keeps its last line when no answer is driven.)
inline void memDrive(LineMem* m, uint64_t now, uint32_t& lh, uint32_t& ah) {
    vm_mem_state& st = m->state;
    if (lh < st.nloads && st.loads[lh].due <= now) {
        const vm_mem_load& a = st.loads[lh++];
        *m->ldRspValidBit = 1;
        put(m->ldRspTag, a.tag);
        copyWords(m->ldRspData.datap, a.data, VM_MEM_LINE / 4);
        *m->ldRspErrBit = 0;
        logEvent(st, VM_MEM_LOAD_ANSWER, now, 0, a.tag, 0);
    } else {
        *m->ldRspValidBit = 0;
    }
    if (ah < st.nacks && st.acks[ah].due <= now) {
        *m->stAckValidBit = 1;
        put(m->stAckTag, st.acks[ah].tag);
        logEvent(st, VM_MEM_ACK, now, 0, st.acks[ah].tag, 0);
        ++ah;
    } else {
        *m->stAckValidBit = 0;
    }
    *m->ldReqReadyBit = 1;
    *m->stReqReadyBit = 1;
}

// memWatch logs the watched ports' values at edge now: each one that
// changed, and every one on the call's first cycle (first).
inline void memWatch(LineMem* m, uint64_t now, bool first, uint64_t (&last)[2]) {
    for (int k = 0; k < 2; ++k) {
        if (!m->watched[k]) continue;
        const uint64_t v = get(m->watch[k]);
        if (first || v != last[k]) {
            logEvent(m->state, VM_MEM_WATCH0 + k, now, v, 0, 0);
            last[k] = v;
        }
    }
}

// memInputs copies the line memory's inputs from the model into the input
// buffer, which then holds the inputs of the last cycle run.
void memInputs(const LineMem* m, uint8_t* in) {
    for (const Port* p : {&m->ldReqReady, &m->ldRspValid, &m->ldRspTag, &m->ldRspData, &m->ldRspErr, &m->stReqReady,
                          &m->stAckValid, &m->stAckTag}) {
        fromModel(*p, in);
    }
}

// memCompact moves the waiting answers to the front of their queues.
void memCompact(vm_mem_state& st, uint32_t& lh, uint32_t& ah) {
    if (lh > 0) {
        std::memmove(st.loads, st.loads + lh, (st.nloads - lh) * sizeof st.loads[0]);
        st.nloads -= lh;
        lh = 0;
    }
    if (ah > 0) {
        std::memmove(st.acks, st.acks + ah, (st.nacks - ah) * sizeof st.acks[0]);
        st.nacks -= ah;
        ah = 0;
    }
}

// inLines reports whether addr is a line in [lo, hi).
inline bool inLines(uint64_t addr, uint64_t lo, uint64_t hi) { return addr % VM_MEM_LINE == 0 && addr >= lo && addr < hi; }

// memTake takes the requests the coming edge, now, transfers (read from
// the model before it) and logs them, or returns false, taking nothing,
// if one is outside its window, on a page not mapped, or its queue is
// full.
inline bool memTake(LineMem* m, uint64_t now, uint32_t& lh, uint32_t& ah) {
    vm_mem_state& st = m->state;
    const bool ld = *m->ldReqValidBit, stv = *m->stReqValidBit;
    st.busy = ld || stv;
    if (!st.busy) return true;
    uint8_t* ldLine = nullptr;
    uint8_t* stLine = nullptr;
    const uint64_t ldAddr = get(m->ldReqAddr), stAddr = get(m->stReqAddr);
    if ((ld && st.nloads == VM_MEM_QUEUE) || (stv && st.nacks == VM_MEM_QUEUE)) memCompact(st, lh, ah);
    if (ld && (!inLines(ldAddr, st.ld_lo, st.ld_hi) || st.nloads == VM_MEM_QUEUE || !(ldLine = memLine(m, ldAddr, 0)))) {
        return false;
    }
    if (stv && (!inLines(stAddr, st.st_lo, st.st_hi) || st.nacks == VM_MEM_QUEUE || !(stLine = memLine(m, stAddr, 1)))) {
        return false;
    }
    const uint64_t due = now + st.delay;
    vm_mem_load* a = nullptr;
    if (ld) {
        a = &st.loads[st.nloads++];
        a->due = due;
        a->tag = get(m->ldReqTag);
        logEvent(st, VM_MEM_LOAD, now, ldAddr, a->tag, 0);
        if (!st.store_first) std::memcpy(a->data, ldLine, VM_MEM_LINE);
    }
    if (stv) {
        const uint8_t* data = static_cast<const uint8_t*>(m->stReqData.datap);
        const uint64_t strb = get(m->stReqStrb);
        if (strb == ~uint64_t{0}) {
            std::memcpy(stLine, data, VM_MEM_LINE);
        } else {
            for (uint64_t b = strb; b != 0; b &= b - 1) {
                const int i = __builtin_ctzll(b);
                stLine[i] = data[i];
            }
        }
        vm_mem_ack& k = st.acks[st.nacks++];
        k.due = due;
        k.tag = get(m->stReqTag);
        logEvent(st, VM_MEM_STORE, now, stAddr, k.tag, strb);
    }
    if (a && st.store_first) std::memcpy(a->data, ldLine, VM_MEM_LINE);
    return true;
}

}  // namespace

extern "C" {

const char* vm_error(void) { return t_err.c_str(); }

int32_t vm_open(const char* clock) {
    if (g_sim) return fail(VM_EOPEN, "a model is already open in this process");
    if (!clock || !*clock) return fail(VM_EINVAL, "no clock signal named");
    Sim* s = new Sim;
    s->owner = pthread_self();
    s->ctx.reset(new VerilatedContext);
    // $stop and failed assertions set gotFinish instead of aborting.
    s->ctx->fatalOnError(false);
    // Only lets Vmodel::trace run later; costs nothing per eval.
    s->ctx->traceEverOn(true);
    // An empty name puts top ports at scope "TOP"; with the default name
    // VPI finds an internal copy whose writes are lost at the next eval.
    s->model.reset(new Vmodel{s->ctx.get(), ""});
    g_sim = s;

    vm_signal_info info;
    int32_t rc = vm_signal(clock, &info);
    if (rc == VM_OK && !(info.width == 1 && info.writable && s->signals[info.id].type == VLVT_UINT8)) {
        rc = fail(VM_EINVAL, "not a writable 1-bit signal");
    }
    if (rc != VM_OK) {
        const std::string msg = t_err;
        g_sim = nullptr;
        destroy(s);
        t_err = msg;
        return rc;
    }
    s->clk = static_cast<CData*>(s->signals[info.id].datap);
    *s->clk = 0;
    s->model->eval();
    return VM_OK;
}

int32_t vm_close(void) {
    if (int32_t rc = check()) return rc;
    Sim* s = g_sim;
    // final blocks; a second $finish in them would exit the process.
    if (!s->ctx->gotFinish()) s->model->final();
    g_sim = nullptr;
    destroy(s);
    return VM_OK;
}

int32_t vm_signal(const char* name, vm_signal_info* info) {
    if (int32_t rc = check()) return rc;
    if (!name || !info) return fail(VM_EINVAL, "nil name or info");
    Sim* s = g_sim;
    auto it = s->ids.find(name);
    if (it != s->ids.end()) {
        const Signal& sig = s->signals[it->second];
        *info = vm_signal_info{it->second, sig.width, sig.writable, sig.direction};
        return VM_OK;
    }
    vpiHandle h = vpi_handle_by_name(const_cast<PLI_BYTE8*>(name), nullptr);
    if (!h) return fail(VM_ENOTFOUND, "not found");
    const PLI_INT32 type = vpi_get(vpiType, h);
    if (type != vpiReg && type != vpiNet && type != vpiParameter) {
        const std::string kind = vpi_get_str(vpiType, h);
        vpi_release_handle(h);
        return fail(VM_EUNSUPPORTED, "is a %s, not a signal", kind.c_str());
    }
    // vpiFullName is "<scope>.<var>"; the symbol table gives the storage.
    const std::string full = vpi_get_str(vpiFullName, h);
    const size_t dot = full.rfind('.');
    const VerilatedScope* scope =
        dot == std::string::npos ? nullptr : s->ctx->scopeFind(full.substr(0, dot).c_str());
    const VerilatedVar* var = scope ? scope->varFind(full.c_str() + dot + 1) : nullptr;
    if (!var) {
        vpi_release_handle(h);
        return fail(VM_ENOTFOUND, "resolved to %s, which is not in the symbol table", full.c_str());
    }
    Signal sig;
    sig.name = name;
    sig.handle = h;
    sig.datap = var->datap();
    sig.type = var->vltype();
    sig.width = static_cast<uint32_t>(vpi_get(vpiSize, h));
    sig.writable = var->isPublicRW() && !var->isParam();
    sig.direction = vpi_get(vpiDirection, h);
    if (var->udims() > 0 || storageBytes(sig.type, sig.width) == 0) {
        vpi_release_handle(h);
        return fail(VM_EUNSUPPORTED, "is an unpacked array or a non-bit type");
    }
    const int32_t id = static_cast<int32_t>(s->signals.size());
    s->signals.push_back(sig);
    s->ids.emplace(name, id);
    *info = vm_signal_info{id, sig.width, sig.writable, sig.direction};
    return VM_OK;
}

int32_t vm_get(int32_t id, uint8_t* buf, uint32_t len) {
    const Signal* sp;
    if (int32_t rc = slowSignal(id, len, "vpi_get_value", &sp)) return rc;
    const Signal& sig = *sp;
    s_vpi_value v;
    v.format = vpiVectorVal;
    vpi_get_value(sig.handle, &v);
    const std::string err = vpiMessage();
    if (!err.empty()) return fail(VM_EINVAL, "vpi_get_value: %s", err.c_str());
    for (uint32_t i = 0; i < len; ++i) {
        buf[i] = static_cast<uint8_t>(static_cast<uint32_t>(v.value.vector[i / 4].aval) >> (8 * (i % 4)));
    }
    return VM_OK;
}

int32_t vm_put(int32_t id, const uint8_t* buf, uint32_t len) {
    const Signal* sp;
    if (int32_t rc = slowSignal(id, len, "vpi_put_value", &sp)) return rc;
    const Signal& sig = *sp;
    Sim* s = g_sim;
    if (!sig.writable) return fail(VM_EREADONLY, "not writable");
    std::vector<s_vpi_vecval> vec(VL_WORDS_I(sig.width));
    for (uint32_t i = 0; i < len; ++i) {
        vec[i / 4].aval = static_cast<PLI_INT32>(static_cast<uint32_t>(vec[i / 4].aval) | uint32_t{buf[i]} << (8 * (i % 4)));
    }
    s_vpi_value v;
    v.format = vpiVectorVal;
    v.value.vector = vec.data();
    // Verilator ignores the time and flags: every put is immediate.
    if (!vpi_put_value(sig.handle, &v, nullptr, vpiNoDelay)) {
        return fail(VM_EINVAL, "vpi_put_value: %s", vpiMessage().c_str());
    }
    // Keep a registered input's slot equal to the model, so the next cycle
    // does not undo this put.
    if (sig.port[VM_IN] >= 0) fromModel(s->ports[VM_IN][sig.port[VM_IN]], bytes(s, VM_IN));
    return VM_OK;
}

int32_t vm_port(int32_t id, int32_t dir, uint32_t* offset) {
    if (int32_t rc = check()) return rc;
    Sim* s = g_sim;
    if (id < 0 || static_cast<size_t>(id) >= s->signals.size()) return fail(VM_EINVAL, "bad signal id %d", id);
    if (dir != VM_IN && dir != VM_OUT) return fail(VM_EINVAL, "bad direction %d", dir);
    Signal& sig = s->signals[id];
    if (sig.port[dir] >= 0) {
        *offset = s->ports[dir][sig.port[dir]].offset;
        return sig.port[dir];
    }
    if (dir == VM_IN && !sig.writable) return fail(VM_EREADONLY, "not writable");
    Port p;
    p.datap = sig.datap;
    p.type = sig.type;
    p.offset = static_cast<uint32_t>(s->buf[dir].size() * 8);
    p.words = VL_WORDS_I(sig.width);
    p.mask = sig.type == VLVT_WDATA ? mask64(sig.width - (p.words - 1) * 32) : mask64(sig.width);
    s->buf[dir].resize(s->buf[dir].size() + (storageBytes(sig.type, sig.width) + 7) / 8, 0);
    fromModel(p, bytes(s, dir));
    sig.port[dir] = static_cast<int32_t>(s->ports[dir].size());
    s->ports[dir].push_back(p);
    addToPlan(s->plan[dir], p);
    *offset = p.offset;
    return sig.port[dir];
}

uint8_t* vm_buffer(int32_t dir, uint32_t* size) {
    *size = 0;
    if (check() != VM_OK || (dir != VM_IN && dir != VM_OUT)) return nullptr;
    *size = static_cast<uint32_t>(g_sim->buf[dir].size() * 8);
    return bytes(g_sim, dir);
}

vm_result vm_cycle(uint64_t n) {
    if (int32_t rc = check()) return vm_result{0, rc};
    Sim* s = g_sim;
    for (uint64_t i = 0; i < n; ++i) {
        if (VL_UNLIKELY(s->ctx->gotFinish())) return vm_result{static_cast<int64_t>(i), finished()};
        step(s);
    }
    return vm_result{static_cast<int64_t>(n), VM_OK};
}

vm_result vm_run_until(int32_t port, uint64_t mask, uint64_t value, uint64_t max) {
    if (int32_t rc = check()) return vm_result{0, rc};
    Sim* s = g_sim;
    if (port < 0 || static_cast<size_t>(port) >= s->ports[VM_OUT].size()) {
        return vm_result{0, fail(VM_EINVAL, "bad output port %d", port)};
    }
    const uint64_t* sample = s->buf[VM_OUT].data() + s->ports[VM_OUT][port].offset / 8;
    for (uint64_t i = 0; i < max; ++i) {
        if (VL_UNLIKELY(s->ctx->gotFinish())) return vm_result{static_cast<int64_t>(i), finished()};
        step(s);
        if ((*sample & mask) == value) return vm_result{static_cast<int64_t>(i + 1), VM_MATCHED};
    }
    return vm_result{static_cast<int64_t>(max), VM_OK};
}

vm_result vm_run_until_any(const vm_cond* conds, int32_t n, uint64_t max) {
    if (int32_t rc = check()) return vm_result{0, rc};
    Sim* s = g_sim;
    if (int32_t rc = checkConds(s, conds, n)) return vm_result{0, rc};
    const uint8_t* out = bytes(s, VM_OUT);
    for (uint64_t i = 0; i < max; ++i) {
        if (VL_UNLIKELY(s->ctx->gotFinish())) return vm_result{static_cast<int64_t>(i), finished()};
        step(s);
        if (anyHolds(s, conds, n, out, i)) return vm_result{static_cast<int64_t>(i + 1), VM_MATCHED};
    }
    return vm_result{static_cast<int64_t>(max), VM_OK};
}

vm_result vm_run_frames(const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in, uint32_t in_size,
                        uint8_t* out, uint32_t out_size, uint64_t frames) {
    if (int32_t rc = check()) return vm_result{0, rc};
    Sim* s = g_sim;
    if (int32_t rc = checkConds(s, conds, n)) return vm_result{0, rc};
    if (int32_t rc = checkFrames(s, in, in_size, out, out_size, frames)) return vm_result{0, rc};
    uint8_t* inBuf = bytes(s, VM_IN);
    uint8_t* outBuf = bytes(s, VM_OUT);
    // Frames go straight between the caller's buffers and the model; the
    // port buffers get the last ones at the end.
    const uint8_t* lastIn = nullptr;
    const uint8_t* lastOut = nullptr;
    int32_t status = VM_OK;
    uint64_t i = 0;
    for (; i < max; ++i) {
        if (VL_UNLIKELY(s->ctx->gotFinish())) {
            status = finished();
            break;
        }
        const uint8_t* sample = outBuf;
        if (i < frames) {
            lastIn = in + i * in_size;
            lastOut = sample = out + i * out_size;
            step(s, lastIn, out + i * out_size);
        } else {
            if (lastIn) copyBuffer(inBuf, lastIn, in_size);  // held from here on
            lastIn = lastOut = nullptr;
            step(s);
        }
        if (anyHolds(s, conds, n, sample, i)) {
            status = VM_MATCHED;
            ++i;
            break;
        }
    }
    if (lastIn) copyBuffer(inBuf, lastIn, in_size);
    if (lastOut) copyBuffer(outBuf, lastOut, out_size);
    return vm_result{static_cast<int64_t>(i), status};
}

int32_t vm_mem_attach(const vm_mem_ports* ports, vm_mem_state** state) {
    if (int32_t rc = check()) return rc;
    if (!ports || !state) return fail(VM_EINVAL, "nil ports or state");
    Sim* s = g_sim;
    std::unique_ptr<LineMem> fresh;
    LineMem* m = s->mem.get();
    if (!m) {
        fresh.reset(new LineMem);
        std::memset(&fresh->state, 0, sizeof fresh->state);
        m = fresh.get();
    }
    if (int32_t rc = memPorts(s, *ports, m)) return rc;
    if (fresh) s->mem = std::move(fresh);
    *state = &s->mem->state;
    return VM_OK;
}

int32_t vm_mem_map(uint64_t page, uint8_t* data) {
    if (int32_t rc = check()) return rc;
    LineMem* m = g_sim->mem.get();
    if (!m) return fail(VM_EINVAL, "no line memory attached");
    if (!data) return fail(VM_EINVAL, "nil page");
    m->pages[page] = data;
    for (int w = 0; w < 2; ++w) {
        if (m->lastPage[w] == page) m->last[w] = data;
    }
    return VM_OK;
}

vm_result vm_mem_run(const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in, uint32_t in_size,
                     uint8_t* out, uint32_t out_size, uint64_t frames) {
    if (int32_t rc = check()) return vm_result{0, rc};
    Sim* s = g_sim;
    LineMem* m = s->mem.get();
    if (!m) return vm_result{0, fail(VM_EINVAL, "no line memory attached")};
    if (int32_t rc = checkConds(s, conds, n)) return vm_result{0, rc};
    if (int32_t rc = checkFrames(s, in, in_size, out, out_size, frames)) return vm_result{0, rc};
    vm_mem_state& st = m->state;
    if (st.nloads > VM_MEM_QUEUE || st.nacks > VM_MEM_QUEUE) {
        return vm_result{0, fail(VM_EINVAL, "%u loads and %u acknowledgements waiting, at most %d each", st.nloads,
                                 st.nacks, VM_MEM_QUEUE)};
    }
    if (n > kMemConds) return vm_result{0, fail(VM_EINVAL, "%d conditions, at most %d", n, kMemConds)};
    // The conditions read the model too.
    const Port* condPort[kMemConds];
    for (int32_t k = 0; k < n; ++k) condPort[k] = &s->ports[VM_OUT][conds[k].port];
    if (st.tail > frames) {
        return vm_result{0, fail(VM_EINVAL, "a tail of %llu frames, but %llu frames",
                                 static_cast<unsigned long long>(st.tail), static_cast<unsigned long long>(frames))};
    }
    uint8_t* inBuf = bytes(s, VM_IN);
    uint8_t* outBuf = bytes(s, VM_OUT);
    const Plan& inPlan = s->plan[VM_IN];
    const Plan& outPlan = s->plan[VM_OUT];
    const uint64_t head = frames - st.tail;  // frames before the tail
    constexpr uint64_t kNone = ~uint64_t{0};
    uint64_t tailed = kNone;  // tail cycles run, once the tail has begun
    uint32_t lh = 0, ah = 0;  // the queues' heads
    uint64_t watched[2] = {0, 0};
    memPlans(s, m);
    const uint8_t* lastIn = nullptr;   // the last frame run
    const uint8_t* lastOut = nullptr;  // the last cycle's sample, if in a frame
    const uint8_t* stopOut = nullptr;  // the sample whose condition held
    int32_t status = VM_OK;
    st.handoff = st.busy = 0;
    st.stop = 0;
    st.nlog = 0;
    uint64_t i = 0;
    while (tailed != kNone ? tailed < st.tail : i < max) {
        if (VL_UNLIKELY(s->ctx->gotFinish())) {
            status = finished();
            break;
        }
        if (VL_UNLIKELY(st.nlog + kCycleEvents > VM_MEM_LOG)) break;  // the log is full: the caller goes on
        // Inputs change only with a frame, the first cycle's all of them
        // (from its frame or the buffer); after it the line memory drives
        // its own straight into the model, and a frame brings the others.
        const uint64_t f = tailed != kNone ? head + tailed : i < head ? i : kNone;
        if (f != kNone) {
            lastIn = in + f * in_size;
            planIn(i == 0 ? inPlan : m->other[VM_IN], lastIn);
        } else if (i == 0) {
            planIn(inPlan, inBuf);
        }
        const uint64_t now = s->cycles + 1;
        memDrive(m, now, lh, ah);
        *s->clk = 0;
        evalAndDump(s);
        // Before the edge: watch, check, take; and a sample only for a
        // cycle the caller sees: a frame's, without the line memory's own
        // ports unless it is the last; the last; the one a condition held.
        memWatch(m, now, i == 0, watched);
        bool stop = false;
        for (int32_t k = 0; k < n && !stop && tailed == kNone; ++k) {
            stop = inWindow(conds[k], i) && met(conds[k], get(*condPort[k]));
        }
        bool handoff;
        if (tailed != kNone) {
            st.busy = *m->ldReqValidBit || *m->stReqValidBit;
            handoff = st.busy;
        } else {
            handoff = !memTake(m, now, lh, ah);
        }
        const bool full = stop || handoff || (tailed == kNone ? i + 1 == max : tailed + 1 == st.tail) ||
                          st.nlog + kCycleEvents > VM_MEM_LOG;
        lastOut = nullptr;
        if (f != kNone) {
            lastOut = out + f * out_size;
            planOut(full ? outPlan : m->other[VM_OUT], out + f * out_size);
        } else if (full) {
            planOut(outPlan, outBuf);
        }
        s->ctx->timeInc(kHalfPeriod);
        *s->clk = 1;
        evalAndDump(s);
        s->ctx->timeInc(kHalfPeriod);
        ++s->cycles;
        ++i;
        if (stop) {
            st.stop = i;
            stopOut = lastOut ? lastOut : outBuf;
            status = VM_MATCHED;
        }
        if (handoff) {
            st.handoff = 1;
            break;
        }
        if (tailed != kNone) {
            ++tailed;
        } else if (stop) {
            if (st.tail == 0 || lh != st.nloads || ah != st.nacks) break;
            tailed = 0;
        }
    }
    memCompact(st, lh, ah);
    if (lastIn) copyBuffer(inBuf, lastIn, in_size);
    memInputs(m, inBuf);
    if (tailed != kNone) lastOut = stopOut;  // the output buffer keeps the sample whose condition held
    if (lastOut && lastOut != outBuf) copyBuffer(outBuf, lastOut, out_size);
    return vm_result{static_cast<int64_t>(i), status};
}

uint64_t vm_cycles(void) { return check() == VM_OK ? g_sim->cycles : 0; }

int32_t vm_trace_on(const char* path) {
    if (int32_t rc = check()) return rc;
    if (!path || !*path) return fail(VM_EINVAL, "no trace path");
    Sim* s = g_sim;
    if (s->trace) s->trace->close();
    std::FILE* f = std::fopen(path, "wb");  // FST reports open failures on stderr only
    if (!f) return fail(VM_EIO, "cannot create: %s", std::strerror(errno));
    std::fclose(f);
    s->trace.reset(new VerilatedFstC);
    s->model->trace(s->trace.get(), 99);
    s->trace->open(path);
    if (!s->trace->isOpen()) {
        s->trace.reset();
        return fail(VM_EIO, "cannot open FST trace");
    }
    return VM_OK;
}

int32_t vm_trace_off(void) {
    if (int32_t rc = check()) return rc;
    Sim* s = g_sim;
    if (s->trace) {
        s->trace->close();
        s->trace.reset();
    }
    return VM_OK;
}

int32_t vm_coverage_write(const char* path) {
    if (int32_t rc = check()) return rc;
    if (!path || !*path) return fail(VM_EINVAL, "no coverage path");
#if VM_COVERAGE
    std::FILE* f = std::fopen(path, "wb");  // write() reports failures on stderr only
    if (!f) return fail(VM_EIO, "cannot create: %s", std::strerror(errno));
    std::fclose(f);
    g_sim->ctx->coveragep()->write(path);
    return VM_OK;
#else
    return fail(VM_EUNSUPPORTED, "model was built without --coverage (add it to VPI_FLAGS)");
#endif
}

}  // extern "C"
