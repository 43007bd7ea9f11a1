// tb.cpp: the native Verilator testbench of the benchmarks, the ceiling the
// Go harness is measured against. It drives the same model (arcalis_top,
// Verilated with the flags of vpi/build.mk, compiled -O2) through the same
// request sequence as tb.Accel.Receive, cycle for cycle, with the same memory
// behaviour (fixed latency, loads answered in order, one answer per cycle per
// port, always ready), but with direct port member access: no VPI, no Go, and
// no checking (no App.Recv snapshots, no reference, no scoreboard).
//
//   arcalis-native STREAM LATENCY [CYCLES_OUT [PASSES]]
//
// STREAM is written by `go run ./bench` (bench/stream.go):
//   "ARCSTRM2" | count u32 | count x (len u32 | offset u32 | capLines u32 |
//   respLen u32 | msg | respPayload u64 | resp)
// all little-endian: resp is the App.Resp image the harness's application
// answers the request with (respLen 0: no reply), respPayload the
// CMD_SEND_APP_RESP payload for it (both written by the Go side, which
// holds the ABI's rules). The requests run PASSES times (default 1). The output is
// one JSON object on stdout; CYCLES_OUT, if given and not "-", receives one
// line per request of the first pass: "cycles status_word", for the Go side
// to compare with its own run.

#include "Vmodel.h"
#include "verilated.h"

#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace {

// The simulated address space of tb/cores.go.
constexpr uint64_t kWindowBase = 0xF0000000;
constexpr uint64_t kWindowSize = 0x1000;
constexpr uint64_t kNetRecvBase = 0x00100000;
constexpr uint64_t kAppRecvBase = 0x04000000;
constexpr uint64_t kNetRespBase = 0x08000000;
constexpr uint64_t kAppRespBase = 0x09000000;
constexpr uint8_t kFiller = 0xA5;
constexpr uint64_t kLine = 64;
constexpr uint64_t kMaxReply = 1 << 21;  // Net.Resp's room: above any reply (tb.AppRespCapMax)

// docs/abi.md sections 2 and 4.
enum : uint8_t { kSendNetBuf = 1, kSendNetLen = 2, kAppReadyFlag = 3, kSendAppResp = 4, kSendAppBuf = 5, kNetReadyFlag = 6 };
constexpr uint64_t kStateIdleResp = 4;

[[noreturn]] void die(const char* fmt, const char* arg = "") {
    std::fprintf(stderr, "arcalis-native: ");
    std::fprintf(stderr, fmt, arg);
    std::fprintf(stderr, "\n");
    std::exit(1);
}

// Memory is a sparse byte store in 64 KiB pages.
class Memory {
  public:
    uint8_t* at(uint64_t addr) {
        const uint64_t page = addr >> 16;
        if (page != lastPage_ || !last_) {
            auto& p = pages_[page];
            if (!p) p.reset(new uint8_t[1 << 16]());
            last_ = p.get();
            lastPage_ = page;
        }
        return last_ + (addr & 0xFFFF);
    }
    void write(uint64_t addr, const uint8_t* b, size_t n) {
        while (n > 0) {
            const size_t k = std::min<size_t>(n, 0x10000 - (addr & 0xFFFF));
            std::memcpy(at(addr), b, k);
            addr += k, b += k, n -= k;
        }
    }
    void fill(uint64_t addr, size_t n, uint8_t v) {
        while (n > 0) {
            const size_t k = std::min<size_t>(n, 0x10000 - (addr & 0xFFFF));
            std::memset(at(addr), v, k);
            addr += k, n -= k;
        }
    }

  private:
    std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
    uint64_t lastPage_ = 0;
    uint8_t* last_ = nullptr;
};

struct Answer {
    uint64_t due;
    uint8_t tag;
    uint8_t data[kLine];
};

struct Region {
    uint64_t base = 0, size = 0;
    bool contains(uint64_t a) const { return a >= base && a - base < size; }
};

class Bench {
  public:
    Bench(uint64_t latency) : latency_(latency) {
        ctx_.reset(new VerilatedContext);
        ctx_->fatalOnError(false);
        top_.reset(new Vmodel{ctx_.get(), ""});
        top_->clk_i = 0;
        top_->eval();
    }
    ~Bench() { top_->final(); }

    uint64_t cycle() const { return cycle_; }
    uint64_t violations() const { return violations_; }

    void reset() {
        top_->rst_ni = 0;
        top_->cfg_valid_i = 0;
        top_->uc_valid_i = 0;
        top_->ld_rsp_valid_i = 0;
        top_->st_ack_valid_i = 0;
        loads_.clear();
        acks_.clear();
        tick();
        tick();
        cycle_ += 2;
        top_->rst_ni = 1;
        step();
    }

    void configure(uint64_t base, uint64_t size) {
        top_->cfg_valid_i = 1;
        top_->cfg_base_i = base;
        top_->cfg_size_i = size;
        step();
        top_->cfg_valid_i = 0;
    }

    // receive mirrors tb.Accel.Receive (and reply); it returns the cycles
    // from the CMD_SEND_NET_LEN edge to the edge whose status load saw ready.
    uint64_t receive(const uint8_t* msg, uint32_t len, uint32_t offset, uint32_t capLines,
                     const std::vector<uint8_t>& resp, uint64_t respPayload, uint64_t* status) {
        const uint64_t addr = kNetRecvBase + offset;
        mem_.fill(kNetRecvBase, offset, kFiller);
        mem_.write(addr, msg, len);
        const uint64_t end = addr + len;
        mem_.fill(end, (kLine - end % kLine) % kLine, kFiller);
        readable_ = Region{addr, len};
        writable_ = Region{kAppRecvBase, uint64_t{capLines} * kLine};

        command(kAppReadyFlag, (kAppRecvBase / kLine) << 16 | capLines);
        command(kSendNetBuf, addr);
        command(kSendNetLen, len);
        const uint64_t start = cycle_ - 1;
        *status = poll(budget(len));
        const uint64_t cycles = cycle_ - 2 - start;
        const uint64_t next = uc(false, kWindowBase, 0);
        if ((next & 0xF) == kStateIdleResp) {
            if (resp.empty()) die("the engine waits for a reply the stream has no App.Resp image for%s", "");
            mem_.write(kAppRespBase, resp.data(), resp.size());
            mem_.fill(kNetRespBase, resp.size() + kLine, kFiller);
            writable_ = Region{kNetRespBase, kMaxReply};
            readable_ = Region{kAppRespBase, resp.size()};
            command(kNetReadyFlag, kNetRespBase);
            command(kSendAppBuf, kAppRespBase);
            command(kSendAppResp, respPayload);
            poll(budget(resp.size()));
        }
        return cycles;
    }

  private:
    // tick is one clock cycle as vpi/shim.cpp runs it: clock low, eval, the
    // pre-edge sample, clock high, eval.
    void tick() {
        top_->clk_i = 0;
        top_->eval();
        ctx_->timeInc(5);
        top_->clk_i = 1;
        top_->eval();
        ctx_->timeInc(5);
        if (ctx_->gotFinish()) die("the design ran $finish or $stop%s", "");
    }

    // step mirrors tb.Accel.Step: the memory drives its answers for this
    // edge, the model samples them, and the memory takes what the edge
    // transferred (the outputs sampled before the edge).
    void step() {
        const uint64_t now = cycle_ + 1;
        if (!loads_.empty() && loads_.front().due <= now) {
            const Answer& a = loads_.front();
            top_->ld_rsp_valid_i = 1;
            top_->ld_rsp_tag_i = a.tag;
            std::memcpy(&top_->ld_rsp_data_i[0], a.data, kLine);
            top_->ld_rsp_err_i = 0;
            loads_.pop_front();
        } else {
            top_->ld_rsp_valid_i = 0;
        }
        if (!acks_.empty() && acks_.front().due <= now) {
            top_->st_ack_valid_i = 1;
            top_->st_ack_tag_i = acks_.front().tag;
            acks_.pop_front();
        } else {
            top_->st_ack_valid_i = 0;
        }
        top_->ld_req_ready_i = 1;
        top_->st_req_ready_i = 1;

        top_->clk_i = 0;
        top_->eval();
        const bool ldTaken = top_->ld_req_valid_o;
        const uint64_t ldAddr = top_->ld_req_addr_o;
        const uint8_t ldTag = top_->ld_req_tag_o;
        const bool stTaken = top_->st_req_valid_o;
        const uint64_t stAddr = top_->st_req_addr_o;
        const uint8_t stTag = top_->st_req_tag_o;
        const uint64_t stStrb = top_->st_req_strb_o;
        uint8_t stData[kLine];
        if (stTaken) std::memcpy(stData, &top_->st_req_data_o[0], kLine);
        ucValid_ = top_->uc_rsp_valid_o;
        ucHit_ = top_->uc_rsp_hit_o;
        ucData_ = top_->uc_rsp_rdata_o;
        ctx_->timeInc(5);
        top_->clk_i = 1;
        top_->eval();
        ctx_->timeInc(5);
        if (ctx_->gotFinish()) die("the design ran $finish or $stop (a failed assertion)%s", "");
        cycle_ = now;

        if (ldTaken) {
            if (ldAddr % kLine != 0 || !(ldAddr < readable_.base + readable_.size && ldAddr + kLine > readable_.base)) ++violations_;
            Answer a;
            a.due = now + 1 + latency_;
            a.tag = ldTag;
            std::memcpy(a.data, mem_.at(ldAddr), kLine);
            loads_.push_back(a);
        }
        if (stTaken) {
            if (stAddr % kLine != 0) ++violations_;
            uint8_t* line = mem_.at(stAddr);
            for (unsigned i = 0; i < kLine; ++i) {
                if ((stStrb >> i & 1) == 0) continue;
                if (!writable_.contains(stAddr + i)) {
                    ++violations_;
                    continue;
                }
                line[i] = stData[i];
            }
            Answer a;
            a.due = now + 1 + latency_;
            a.tag = stTag;
            acks_.push_back(a);
        }
    }

    uint64_t uc(bool write, uint64_t addr, uint64_t data) {
        top_->uc_valid_i = 1;
        top_->uc_write_i = write;
        top_->uc_addr_i = addr;
        top_->uc_wdata_i = data;
        step();
        top_->uc_valid_i = 0;
        step();
        if (!ucValid_ || !ucHit_) die("UC access not answered or not claimed%s", "");
        return ucData_;
    }

    void command(uint8_t op, uint64_t payload) { uc(true, kWindowBase, payload << 4 | op); }

    uint64_t poll(uint64_t budget) {
        top_->uc_valid_i = 1;
        top_->uc_write_i = 0;
        top_->uc_addr_i = kWindowBase;
        for (uint64_t i = 0; i < budget; ++i) {
            step();
            if (ucValid_ && (ucData_ >> 4 & 1)) {
                const uint64_t s = ucData_;
                top_->uc_valid_i = 0;
                step();
                return s;
            }
        }
        die("hang: no ready status within the budget%s", "");
    }

    uint64_t budget(uint64_t n) const {
        const uint64_t lines = n / kLine + 2;
        return 2000 + 4 * lines * (4 + latency_);
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vmodel> top_;
    Memory mem_;
    std::deque<Answer> loads_, acks_;
    Region readable_, writable_;
    uint64_t latency_;
    uint64_t cycle_ = 0;
    uint64_t violations_ = 0;
    bool ucValid_ = false, ucHit_ = false;
    uint64_t ucData_ = 0;
};

struct Req {
    uint32_t len, offset, capLines;
    std::vector<uint8_t> msg, resp;
    uint64_t respPayload;
};

uint32_t le32(const uint8_t* p) { return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24; }

std::vector<Req> readStream(const char* path) {
    std::FILE* f = std::fopen(path, "rb");
    if (!f) die("cannot open stream %s", path);
    std::vector<uint8_t> buf;
    uint8_t chunk[1 << 16];
    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) buf.insert(buf.end(), chunk, chunk + n);
    std::fclose(f);
    if (buf.size() < 12 || std::memcmp(buf.data(), "ARCSTRM2", 8) != 0) die("%s: not a request stream (bad magic)", path);
    const uint32_t count = le32(&buf[8]);
    size_t p = 12;
    std::vector<Req> reqs(count);
    for (uint32_t i = 0; i < count; ++i) {
        if (p + 16 > buf.size()) die("%s: truncated request header", path);
        Req& r = reqs[i];
        r.len = le32(&buf[p]);
        r.offset = le32(&buf[p + 4]);
        r.capLines = le32(&buf[p + 8]);
        const uint32_t respLen = le32(&buf[p + 12]);
        p += 16;
        if (r.offset > 63 || r.capLines < 5 || r.capLines > 0xFFFF || p + r.len + 8 + respLen > buf.size())
            die("%s: bad request record", path);
        r.msg.assign(buf.begin() + p, buf.begin() + p + r.len);
        p += r.len;
        r.respPayload = uint64_t{le32(&buf[p])} | uint64_t{le32(&buf[p + 4])} << 32;
        p += 8;
        r.resp.assign(buf.begin() + p, buf.begin() + p + respLen);
        p += respLen;
    }
    if (p != buf.size()) die("%s: bytes after the last request", path);
    return reqs;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) die("usage: arcalis-native STREAM LATENCY [CYCLES_OUT [PASSES]]%s", "");
    const std::vector<Req> reqs = readStream(argv[1]);
    const uint64_t latency = std::strtoull(argv[2], nullptr, 10);
    const uint64_t passes = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;
    if (passes == 0) die("PASSES must be at least 1%s", "");
    std::vector<uint64_t> cycles(reqs.size()), status(reqs.size());

    Bench b(latency);
    b.reset();
    b.configure(kWindowBase, kWindowSize);
    const uint64_t c0 = b.cycle();
    const auto t0 = std::chrono::steady_clock::now();
    for (uint64_t pass = 0; pass < passes; ++pass) {
        for (size_t i = 0; i < reqs.size(); ++i) {
            const Req& r = reqs[i];
            uint64_t st;
            const uint64_t c = b.receive(r.msg.data(), r.len, r.offset, r.capLines, r.resp, r.respPayload, &st);
            if (pass == 0) cycles[i] = c, status[i] = st;
        }
    }
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t simulated = b.cycle() - c0;

    if (argc > 3 && std::strcmp(argv[3], "-") != 0) {
        std::FILE* f = std::fopen(argv[3], "w");
        if (!f) die("cannot create %s", argv[3]);
        for (size_t i = 0; i < reqs.size(); ++i) std::fprintf(f, "%" PRIu64 " %" PRIu64 "\n", cycles[i], status[i]);
        std::fclose(f);
    }
    std::printf("{\"requests\":%" PRIu64 ",\"cycles\":%" PRIu64 ",\"seconds\":%.9f,\"violations\":%" PRIu64 "}\n",
                uint64_t{reqs.size()} * passes, simulated, sec, b.violations());
    return 0;
}
