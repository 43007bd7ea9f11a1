/*
 * shim.h: C ABI of libvmodel.so, a Verilated model (class prefix Vmodel)
 * linked with the Verilator runtime and shim.cpp. It moves bits and time
 * only; it knows nothing about any particular design.
 *
 * One model per process (VPI is process-global). Every call except
 * vm_error must come from the OS thread that called vm_open; calls from any
 * other thread return VM_ETHREAD and touch nothing.
 *
 * Values cross the ABI little-endian, bit 0 in the low bit of byte 0,
 * ceil(width/8) bytes long. Port buffers hold each registered port at a
 * fixed offset, in a slot padded to a multiple of 8 bytes.
 */
#ifndef ARCALIS_VPI_SHIM_H
#define ARCALIS_VPI_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Status codes. Negative codes are errors; vm_error describes the last one
 * returned on the owner thread. */
enum {
    VM_OK = 0,
    VM_MATCHED = 1,     /* vm_run_until: the condition held */
    VM_EINVAL = -1,     /* bad argument */
    VM_ENOTOPEN = -2,   /* no model is open */
    VM_EOPEN = -3,      /* a model is already open in this process */
    VM_ETHREAD = -4,    /* called from a thread other than vm_open's */
    VM_ENOTFOUND = -5,  /* no such signal */
    VM_EREADONLY = -6,  /* signal is not writable */
    VM_EFINISHED = -7,  /* $finish or $stop ran; the model will not advance */
    VM_EUNSUPPORTED = -8, /* signal kind the shim cannot move (array, string, ...) */
    VM_EIO = -9         /* a file could not be written */
};

/* Port directions, for vm_port and vm_buffer. */
enum { VM_IN = 0, VM_OUT = 1 };

/* What vm_signal learns about a signal. */
typedef struct {
    int32_t id;        /* handle for vm_get, vm_put, vm_port */
    uint32_t width;    /* bits (vpiSize) */
    int32_t writable;  /* 1 if vm_put and VM_IN ports may drive it */
    int32_t direction; /* vpiInput 1, vpiOutput 2, vpiInout 3, none 5 */
} vm_signal_info;

/* Result of a multi-cycle call. */
typedef struct {
    int64_t cycles; /* cycles completed by this call */
    int32_t status; /* VM_OK, VM_MATCHED or a negative error */
} vm_result;

/* vm_open constructs the model, runs time 0 with the clock low, and makes
 * the calling thread the owner. clock names a 1-bit writable signal. */
int32_t vm_open(const char* clock);
/* vm_close runs final blocks, closes any trace and frees the model. */
int32_t vm_close(void);
/* vm_error returns the message for the last error on this thread ("" if
 * none); valid until the next call on this thread. */
const char* vm_error(void);

/* vm_signal resolves a hierarchical name through vpi_handle_by_name. */
int32_t vm_signal(const char* name, vm_signal_info* info);
/* Slow path through vpi_get_value / vpi_put_value (vpiVectorVal). len must
 * be ceil(width/8); vm_put drops bits above width. */
int32_t vm_get(int32_t id, uint8_t* buf, uint32_t len);
int32_t vm_put(int32_t id, const uint8_t* buf, uint32_t len);

/* vm_port registers signal id as a fast-path port of direction dir and
 * returns its index in that direction's table (registering twice returns
 * the same index); *offset receives its byte offset in vm_buffer(dir). The
 * slot starts with the signal's current value. Registering may move the
 * buffer: fetch vm_buffer again afterwards. */
int32_t vm_port(int32_t id, int32_t dir, uint32_t* offset);
/* vm_buffer returns the port buffer of dir and its size in bytes. */
uint8_t* vm_buffer(int32_t dir, uint32_t* size);

/* vm_cycle runs n cycles. Each cycle: copy the input buffer into the model;
 * clock low, eval; copy outputs into the output buffer (the pre-edge
 * sample); clock high, eval. */
vm_result vm_cycle(uint64_t n);
/* vm_run_until runs cycles like vm_cycle until the pre-edge sample of
 * output port `port` satisfies (v & mask) == value, on its low 64 bits, or
 * max cycles have run. status is VM_MATCHED if the condition held; the
 * cycle whose sample matched is completed and counted. */
vm_result vm_run_until(int32_t port, uint64_t mask, uint64_t value, uint64_t max);
/* One condition of vm_run_until_any on the pre-edge sample v of an output
 * port (its low 64 bits): (v & mask) == value, or != value if ne is set.
 * With before above 0 it is checked on the first `before` cycles of the
 * call only; it is not checked on the first `from` cycles of the call. */
typedef struct {
    int32_t port;
    int32_t ne;
    uint64_t mask;
    uint64_t value;
    uint64_t before;
    uint64_t from;
} vm_cond;

/* vm_run_until_any runs cycles like vm_cycle until any of the n conditions
 * holds on a pre-edge sample, or max cycles have run. status is VM_MATCHED
 * if one held; the cycle whose sample matched is completed and counted. */
vm_result vm_run_until_any(const vm_cond* conds, int32_t n, uint64_t max);
/* vm_run_frames runs cycles like vm_run_until_any, except that the first
 * `frames` cycles take their inputs from the caller: before cycle i the
 * model gets input frame i (in + i*in_size, laid out like the input buffer)
 * instead of the input buffer, and the cycle's pre-edge sample goes to
 * output frame i (out + i*out_size, laid out like the output buffer).
 * in_size and out_size must be the current sizes of the two buffers.
 * Afterwards the input buffer holds the inputs of the last cycle run and
 * the output buffer its sample; cycles past the frames hold the last
 * frame's inputs. */
vm_result vm_run_frames(const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in, uint32_t in_size,
                        uint8_t* out, uint32_t out_size, uint64_t frames);
/* The line memory: a memory on a design's cache-line ports that the shim
 * answers itself, so that one call runs whole stretches of cycles with
 * memory traffic in them (vm_mem_run). It is mechanism only, and judges
 * nothing: both request ports always ready; each request taken goes into
 * its port's queue, answered in order, never with an error, state.delay
 * edges after the edge that took it, at most one per port per cycle; a
 * load reads its line of the caller's pages at the edge that takes it, a
 * store writes its strobed bytes there; and every request taken, answer
 * driven and change of a watched port is logged with its edge, for the
 * caller to judge. A request outside its window (state.ld_lo.., st_lo..),
 * not line aligned, on a page not mapped or with its queue full ends the
 * call after the cycle whose edge transferred it, untaken: the caller
 * takes that edge's requests itself (handoff).
 *
 * Storage is the caller's: 64 KiB pages it maps with vm_mem_map and keeps
 * in place until vm_close. So are the answers waiting between calls:
 * vm_mem_run starts from the queues in the state and leaves there the
 * ones still waiting. */
#define VM_MEM_LINE 64
#define VM_MEM_PAGE 65536
#define VM_MEM_QUEUE 256
#define VM_MEM_LOG 16384

/* The ports, as vm_port indices. Data ports are VM_MEM_LINE bytes wide. */
typedef struct {
    /* VM_IN */
    int32_t ld_req_ready, ld_rsp_valid, ld_rsp_tag, ld_rsp_data, ld_rsp_err;
    int32_t st_req_ready, st_ack_valid, st_ack_tag;
    /* VM_OUT */
    int32_t ld_req_valid, ld_req_addr, ld_req_tag;
    int32_t st_req_valid, st_req_addr, st_req_tag, st_req_data, st_req_strb;
    /* Two output ports (at most 64 bits are logged) whose value is logged
     * on a call's first cycle and whenever it changes; -1: none. */
    int32_t watch[2];
} vm_mem_ports;

typedef struct {
    uint64_t due, tag; /* due: the edge that drives the answer */
    uint8_t data[VM_MEM_LINE];
} vm_mem_load;

typedef struct {
    uint64_t due, tag;
} vm_mem_ack;

/* What a log entry records. */
enum {
    VM_MEM_LOAD = 1,        /* a load taken: addr, tag */
    VM_MEM_STORE = 2,       /* a store taken and written: addr, tag, strb */
    VM_MEM_LOAD_ANSWER = 3, /* a load answer driven: tag */
    VM_MEM_ACK = 4,         /* a store acknowledgement driven: tag */
    VM_MEM_WATCH0 = 5,      /* watch[0]'s value before the edge: addr */
    VM_MEM_WATCH1 = 6       /* watch[1]'s */
};

/* One log entry: kind at edge (numbered like vm_cycles). */
typedef struct {
    uint64_t edge, addr, tag, strb;
    uint32_t kind, pad;
} vm_mem_event;

/* The line memory's state, in the shim's memory, read and written by the
 * caller between calls. Edges are numbered like vm_cycles: the edge of the
 * next cycle is vm_cycles()+1. */
typedef struct {
    /* Set by the caller. */
    uint64_t delay;        /* edges from the one that takes a request to the one that answers it */
    uint64_t ld_lo, ld_hi; /* the lines [lo, hi) loads may be taken from */
    uint64_t st_lo, st_hi; /* and stores to */
    uint32_t store_first;  /* a load and a store of one edge: the load reads after the store wrote */
    /* The answers waiting, oldest first: the caller's before a call,
     * vm_mem_run's after it. */
    uint32_t nloads, nacks;
    vm_mem_load loads[VM_MEM_QUEUE];
    vm_mem_ack acks[VM_MEM_QUEUE];
    /* Set by the caller: how many of vm_mem_run's frames are its tail. */
    uint64_t tail;
    /* Set by vm_mem_run: the cycles it ran up to the one whose condition
     * held, that one included (0: none held); and about its last cycle. */
    uint64_t stop;
    uint32_t handoff; /* its edge transferred a request left to the caller */
    uint32_t busy;    /* its edge transferred a load or a store */
    /* Set by vm_mem_run: what it did, in order. A call ends early, after
     * a whole cycle, when the log has no room for another. */
    uint32_t nlog;
    uint32_t pad;
    vm_mem_event log[VM_MEM_LOG];
} vm_mem_state;

/* vm_mem_attach checks the ports and returns the line memory's state
 * (zeroed; one per model, freed by vm_close). Attaching again replaces the
 * ports and keeps the state and the pages. */
int32_t vm_mem_attach(const vm_mem_ports* ports, vm_mem_state** state);
/* vm_mem_map maps page number page (addresses page*VM_MEM_PAGE on) to
 * VM_MEM_PAGE bytes at data, until vm_close or another map of the page. */
int32_t vm_mem_map(uint64_t page, uint8_t* data);
/* vm_mem_run runs cycles like vm_run_frames, with the line memory driving
 * its input ports (over the frames' values) and taking the requests each
 * edge transfers; it also stops after a cycle that hands off, and before
 * a cycle the log has no room for. At most 32 conditions. It samples only
 * the cycles the caller sees: a frame's (but for the last cycle, the line
 * memory's own output ports keep what an earlier sample left there), the
 * last, the one a condition held in. So after VM_EFINISHED the output
 * buffer may hold an earlier sample.
 *
 * The last state.tail of the frames are a tail, what the caller would run
 * next once a condition holds: the cycles before it take the frames before
 * it, as vm_run_frames does. When a condition holds (state.stop), and no
 * answer is waiting after that cycle's edge, the call goes on with the
 * tail's cycles, one per tail frame, their samples in the tail's output
 * frames, no condition checked: the status is VM_MATCHED, and the output
 * buffer keeps the sample of the cycle whose condition held. A tail cycle
 * whose edge transfers any request hands it off and ends the call; max
 * counts the cycles before the tail. */
vm_result vm_mem_run(const vm_cond* conds, int32_t n, uint64_t max, const uint8_t* in, uint32_t in_size,
                     uint8_t* out, uint32_t out_size, uint64_t frames);

/* vm_cycles returns the cycles completed since vm_open. */
uint64_t vm_cycles(void);

/* FST tracing: on (to path, replacing any open trace) and off. */
int32_t vm_trace_on(const char* path);
int32_t vm_trace_off(void);

/* vm_coverage_write writes the coverage database to path. Returns VM_OK,
 * or VM_EUNSUPPORTED (and writes nothing) if the model was built without
 * --coverage. */
int32_t vm_coverage_write(const char* path);

#ifdef __cplusplus
}
#endif

#endif
