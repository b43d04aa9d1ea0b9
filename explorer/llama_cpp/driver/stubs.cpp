// The few ggml / libllama functions the chat library's kept code names, for a driver built
// without ggml and libllama. The driver never loads a model (as in llama.cpp's own chat
// tests: BOS/EOS come from the request, the model pointer is null), so the libllama ones are
// unreachable; they say so if reached. The declarations of llama.h / ggml.h are not
// included on purpose: a C symbol links by its name alone, so these stand in for trees whose
// signatures differ. The build adds stubs for any other C symbol a tree's kept code names
// (see explorer/llama_cpp/build.py), calling driver_unreachable.

#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

[[noreturn]] void driver_unreachable(const char * name) {
    throw std::logic_error(std::string(name) + " is not available in the Template Explorer driver (no model is loaded)");
}

// llama.cpp aborts the process here (GGML_ASSERT / GGML_ABORT); the driver reports it as an
// error instead and serves the next request. The message says what llama-server would do.
struct ggml_abort_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

extern "C" [[noreturn]] void ggml_abort(const char * file, int line, const char * fmt, ...) {
    char    text[2048];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(text, sizeof(text), fmt, args);
    va_end(args);
    throw ggml_abort_error(std::string("llama.cpp aborts (GGML_ABORT; llama-server would crash) at ") + file + ":" +
                           std::to_string(line) + ": " + text);
}

#define DRIVER_STUB(name) \
    extern "C" void name() { driver_unreachable(#name); }

DRIVER_STUB(llama_model_chat_template)
DRIVER_STUB(llama_model_get_vocab)
DRIVER_STUB(llama_token_to_piece)
DRIVER_STUB(llama_vocab_bos)
DRIVER_STUB(llama_vocab_eos)
DRIVER_STUB(llama_vocab_get_add_bos)
DRIVER_STUB(llama_vocab_get_add_eos)
DRIVER_STUB(llama_chat_apply_template)
