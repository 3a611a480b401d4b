// Save and restore of one Verilated tsnic_core (Verilator --savable), for the persistent simulated card.
//
// Included at the end of shim.cpp (it needs the Model there), so it is compiled once per configuration
// with the same TSNIC_TOP / TSNIC_FN defines.
//
//   TSNIC_FN(save)(handle, ctx, sink)   serializes the model (every register, memory and the
//                                       VerilatedContext) and hands the bytes to sink(ctx, p, n) in
//                                       chunks; returns the number of bytes.
//   TSNIC_FN(restore)(handle, p, n)     loads bytes that save() wrote into the model. Returns 0, or
//                                       1 when n is not the size this model serializes to,
//                                       2 when Verilator's own model check value differs,
//                                       3 when the bytes were not consumed exactly.
//
// Verilator's deserializer aborts the process (VL_FATAL) on a wrong check value and reads past the end
// of a short stream, so restore() first serializes the live model to learn the exact size and check
// value this model writes and refuses anything else before a byte reaches the model. The Rust side
// also checks its own fingerprint and a CRC before calling this.
#include <cstring>

#include "verilated_save.h"

namespace {

typedef void (*tsnic_sink)(void* ctx, const uint8_t* data, size_t len);

// Serializes into a caller's sink (or only counts, with a null sink), keeping the first bytes.
class SinkSerialize final : public VerilatedSerialize {
  public:
    SinkSerialize(tsnic_sink sink, void* ctx) : m_sink(sink), m_ctx(ctx) { m_isOpen = true; }
    ~SinkSerialize() override { flush(); }
    void flush() override {
        const size_t n = static_cast<size_t>(m_cp - m_bufp);
        for (size_t i = 0; i < n && m_total + i < sizeof(m_head); i++) m_head[m_total + i] = m_bufp[i];
        if (n && m_sink) m_sink(m_ctx, m_bufp, n);
        m_total += n;
        m_cp = m_bufp;
    }
    size_t total() {
        flush();
        return m_total;
    }
    const uint8_t* head() const { return m_head; }

  private:
    tsnic_sink m_sink;
    void* m_ctx;
    size_t m_total = 0;
    uint8_t m_head[16] = {0};
};

// Deserializes from a caller's buffer. Never reads outside its own buffer: a read past the end of the
// data gets zeros and is caught by exact() afterwards.
class BufDeserialize final : public VerilatedDeserialize {
  public:
    BufDeserialize(const uint8_t* data, size_t len) : m_src(data), m_left(len) {
        m_isOpen = true;
        m_cp = m_bufp;
        m_endp = m_bufp;
    }
    void fill() override {
        if (m_cp > m_endp) {  // already read past the data: keep serving zeros
            m_overrun = true;
            std::memset(m_bufp, 0, bufferSize());
            m_cp = m_bufp;
            m_endp = m_bufp + bufferSize();
            return;
        }
        // All data is in and zeros follow it to the end of the buffer: nothing to do (the buffer
        // check calls this for every read of the last 16 KiB; compacting each time was quadratic).
        if (m_left == 0 && m_padded && m_cp + bufferInsertSize() <= m_bufp + bufferSize()) return;
        const size_t keep = static_cast<size_t>(m_endp - m_cp);
        std::memmove(m_bufp, m_cp, keep);
        m_cp = m_bufp;
        m_endp = m_bufp + keep;
        size_t room = bufferSize() - keep;
        const size_t n = room < m_left ? room : m_left;
        std::memcpy(m_endp, m_src, n);
        m_src += n;
        m_left -= n;
        m_endp += n;
        room -= n;
        // Zeros after the data, so that a read the buffer check allowed stays inside the buffer.
        std::memset(m_endp, 0, room);
        m_padded = m_left == 0;
    }
    // True when every byte was read and nothing more.
    bool exact() const { return !m_overrun && m_left == 0 && m_cp == m_endp; }

  private:
    const uint8_t* m_src;
    size_t m_left;
    bool m_overrun = false;
    bool m_padded = false;
};

}  // namespace

extern "C" {

size_t TSNIC_FN(save)(void* handle, void* ctx, tsnic_sink sink) {
    Model* m = static_cast<Model*>(handle);
    SinkSerialize os(sink, ctx);
    os << *m->top;
    return os.total();
}

int TSNIC_FN(restore)(void* handle, const uint8_t* data, size_t len) {
    Model* m = static_cast<Model*>(handle);
    size_t want;
    uint8_t head[16];
    {
        SinkSerialize probe(nullptr, nullptr);
        probe << *m->top;
        want = probe.total();
        std::memcpy(head, probe.head(), sizeof(head));
    }
    if (len != want) return 1;
    // The stream starts with the symbol table's didInit flag (1 byte), then the root module's 64-bit
    // check value, a hash Verilator derives from the model's variables.
    if (len < 9 || std::memcmp(data + 1, head + 1, 8) != 0) return 2;
    BufDeserialize is(data, len);
    is >> *m->top;
    return is.exact() ? 0 : 3;
}

}  // extern "C"
