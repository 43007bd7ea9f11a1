/*
 * shim.h: C ABI of libvmodel.so, a Verilated model (class prefix Vmodel)
 * linked with the Verilator runtime and shim.cpp. It moves bits and time
 * only; it knows nothing about any particular design.
 *
 * One model per process (VPI is process-global). Every call except
 * vm_error must come from the OS thread that called vm_open; calls from any
 * other thread return VM_ETHREAD and touch nothing.
 *
 * (vm_pipe_start adds a thread of the shim's own that runs cycles; see
 * there.)
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
/* The pipe: cycles run on a thread of their own, from frames the owner
 * publishes in a ring, so that the owner prepares later cycles while the
 * model evaluates earlier ones. Every field is in memory both threads see;
 * read and write the counters atomically (acquire, release).
 *
 * The owner writes frame k at in + (k % depth) * in_stride: the inputs,
 * laid out like the input buffer, then a uint32 condition mask right after
 * them; then it sets pushed to k+1. It may publish frames up to depth
 * ahead of done. The pipe thread runs frame `done`, as vm_run_frames runs a
 * frame, writes its pre-edge sample at out + (k % depth) * out_stride and
 * sets done to k+1. Strides are whole cache lines, so that the two threads
 * never write the same line for different frames.
 * If any condition of the pipe's table selected by the frame's mask (bit j:
 * condition j; `before` and `from` are ignored) holds on that sample, it first sets
 * halted to k+1 and halt to VM_MATCHED (so that whoever reads done = k+1
 * sees both); if the design has finished, it sets halt to
 * VM_EFINISHED without running the frame. While halt is not VM_OK it runs
 * nothing: the owner drops the frames it will not run by setting pushed
 * back to done, then clears halt. The other entry points but vm_close and
 * vm_pipe_stop fail while pushed != done. */
typedef struct {
    /* One cache line per writer and rate: what changes every frame is not
     * next to what the other side polls. */
    uint64_t pushed; /* owner: frames published */
    uint64_t pad0[7];
    uint64_t done;   /* pipe thread: frames run */
    uint64_t halted; /* pipe thread: done once the frame that halted ran */
    int32_t halt;    /* pipe thread sets, owner clears */
    uint32_t pad1[11];
    uint32_t sleeping; /* pipe thread: 1 while it may wait on wake */
    uint32_t wake;     /* owner: add 1 and FUTEX_WAKE it after changing
                        * pushed or halt while sleeping is 1 (a wake the
                        * owner misses costs at most a millisecond) */
    uint32_t quit;     /* owner (vm_pipe_stop) */
} vm_pipe;

/* Where vm_pipe_start put the pipe. */
typedef struct {
    vm_pipe* ctl;
    uint8_t* in;  /* depth input frames, each with its mask */
    uint8_t* out; /* depth samples */
    uint32_t depth;
    uint32_t in_stride, out_stride;
} vm_pipe_ring;

/* vm_pipe_start starts the pipe thread with rings of depth frames (a power
 * of two, 2 to 4096) and a table of up to 32 conditions. Registering ports
 * fails while the pipe runs. The input and output buffers hold what they
 * held until the owner copies a frame and its sample into them. */
int32_t vm_pipe_start(uint32_t depth, const vm_cond* conds, int32_t n, vm_pipe_ring* ring);
/* vm_pipe_stop ends the pipe thread; vm_close does too. */
int32_t vm_pipe_stop(void);

/* The line memory: a memory on a design's cache-line ports that the shim
 * answers itself, so that one call runs whole stretches of cycles with
 * memory traffic in them (vm_mem_run) instead of at most latency+1. It is
 * the plain memory only: both request ports always ready, each answer
 * exactly latency+1 cycles after the edge that took its request, answers in
 * order, at most one per port per cycle, never an error. A request it
 * would not take exactly as that memory (a load not line aligned or of a
 * line outside the readable range, a store not line aligned or with a
 * strobed byte outside the writable range, an unmapped page, a full queue)
 * ends the call after the cycle whose edge transferred it, untaken: the
 * caller takes that edge's requests itself (handoff).
 *
 * Storage is the caller's: 64 KiB pages it maps with vm_mem_map and keeps
 * in place until vm_close. So are the answers waiting between calls:
 * vm_mem_run starts from the queues in the state and leaves there the
 * ones still waiting. */
#define VM_MEM_LINE 64
#define VM_MEM_PAGE 65536
#define VM_MEM_QUEUE 256

/* The ports, as vm_port indices. Data ports are VM_MEM_LINE bytes wide. */
typedef struct {
    /* VM_IN */
    int32_t ld_req_ready, ld_rsp_valid, ld_rsp_tag, ld_rsp_data, ld_rsp_err;
    int32_t st_req_ready, st_ack_valid, st_ack_tag;
    /* VM_OUT */
    int32_t ld_req_valid, ld_req_addr, ld_req_tag;
    int32_t st_req_valid, st_req_addr, st_req_tag, st_req_data, st_req_strb;
    /* Two output ports whose values every cycle counts (vm_mem_state's
     * count_at), and count[0]'s changes too; -1: none. */
    int32_t count[2];
} vm_mem_ports;

typedef struct {
    uint64_t due, tag; /* due: the edge that drives the answer */
    uint8_t data[VM_MEM_LINE];
} vm_mem_load;

typedef struct {
    uint64_t due, tag;
} vm_mem_ack;

/* The line memory's state, in the shim's memory, read and written by the
 * caller between calls. Edges are numbered like vm_cycles: the edge of the
 * next cycle is vm_cycles()+1. */
typedef struct {
    /* Set by the caller. */
    uint64_t latency;
    uint64_t rd_base, rd_size; /* loads may touch lines overlapping this */
    uint64_t wr_base, wr_size; /* stores may write bytes inside this */
    /* The answers waiting, oldest first: the caller's before a call,
     * vm_mem_run's after it. */
    uint32_t nloads, nacks;
    vm_mem_load loads[VM_MEM_QUEUE];
    vm_mem_ack acks[VM_MEM_QUEUE];
    /* Added to by vm_mem_run; the caller zeroes them when it likes. */
    uint64_t taken_loads, taken_stores;
    uint64_t stored_lo, stored_hi; /* the lines stored to lie in [lo, hi) */
    /* Where the count ports' values are counted, in the caller's memory:
     * each cycle adds 1 to count_at[k][v] for count[k]'s value v if it is
     * below count_n[k] (at most 16), and for a change of count[0] from f to
     * v, to trans_at[16*f+v]; *last and *started are count[0]'s last value
     * and whether there is one. NULL: nothing counted. */
    int64_t* count_at[2];
    uint64_t count_n[2];
    int64_t* trans_at;
    uint64_t* last;
    uint8_t* started;
    /* Set by the caller: how many of vm_mem_run's frames are its tail. */
    uint64_t tail;
    /* Set by vm_mem_run: the cycles it ran up to the one whose condition
     * held, that one included (0: none held); and about its last cycle. */
    uint64_t stop;
    uint32_t handoff; /* its edge transferred a request left to the caller */
    uint32_t busy;    /* its edge transferred a load or a store */
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
 * edge transfers; it also stops after a cycle that hands off. At most 32
 * conditions. It samples only the cycles the caller sees: a frame's (but
 * for the last cycle, the line memory's own output ports keep what an
 * earlier sample left there), the last, the one a condition held in. So
 * after VM_EFINISHED the output buffer may hold an earlier sample.
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
