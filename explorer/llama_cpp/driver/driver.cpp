// Template Explorer's llama.cpp driver: llama.cpp's own chat library behind JSON lines.
//
// Input (stdin): one JSON object per line, {"id": N, "op": OP, ...}. Output (the stdout the
// process started with): one JSON object per line, {"id": N, "ok": true, ...} or
// {"id": N, "ok": false, "error": {"type": C++ type, "message": what()}}. One process serves
// any number of requests; templates are initialised once and named by a handle.
//
// Any request may carry "now" (seconds since the epoch): the wall clock from then on.
//
// OPs:
//   hello                          -> build number, commit, features
//   init     template, bos, eos    -> handle, source (after llama.cpp's init patches), caps,
//                                     supports_enable_thinking
//   apply    handle, request       -> params (common_chat_templates_apply, oracle field names)
//   parse    parser settings, input, is_partial -> result (common_chat_parse)
//   stream   parser settings, input -> every UTF-8 prefix parsed with is_partial=true
//   analyze  handle                -> autoparser analysis (when built with it) and the
//                                     specialised-route check
//   quit
//
// Nothing here reimplements llama.cpp: every answer comes from the library's own calls, the
// ones llama-server makes. Library logging is switched off and anything the library prints
// to stdout goes to stderr, so the protocol's stream stays clean.

#include "chat.h"
#include "common.h"
#include "log.h"
#include "peg-parser.h"

#if __has_include("chat-auto-parser.h") && !defined(DRIVER_NO_ANALYSIS)
#    include "chat-auto-parser.h"
#    define DRIVER_HAS_ANALYSIS 1
#else
#    define DRIVER_HAS_ANALYSIS 0
#endif

#include <nlohmann/json.hpp>

#include <cxxabi.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <type_traits>
#include <memory>
#include <stdexcept>
#include <string>
#include <typeinfo>
#include <vector>

#ifndef DRIVER_BUILD_NUMBER
#    define DRIVER_BUILD_NUMBER 0
#endif
#ifndef DRIVER_BUILD_COMMIT
#    define DRIVER_BUILD_COMMIT "unknown"
#endif

using ojson = nlohmann::ordered_json;

// --- the wall clock ---------------------------------------------------------------------
// llama.cpp reads the wall clock itself for the dates templates print (date_string and
// datetime from std::chrono::system_clock::now(), strftime_now from std::time), beside the
// request's `now`. A request's "now" (seconds since the epoch) fixes that clock for the
// process, as running on that date would: these definitions in the executable take the
// place of the C library's for every caller. The monotonic clocks stay real.
static long long g_fixed_now = -1;

static int real_clock_gettime(clockid_t clock, struct timespec * ts) {
    return static_cast<int>(syscall(SYS_clock_gettime, clock, ts));
}

extern "C" int clock_gettime(clockid_t clock, struct timespec * ts) noexcept {
    if (g_fixed_now >= 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) {
        ts->tv_sec  = static_cast<time_t>(g_fixed_now);
        ts->tv_nsec = 0;
        return 0;
    }
    return real_clock_gettime(clock, ts);
}

extern "C" time_t time(time_t * out) noexcept {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out) {
        *out = ts.tv_sec;
    }
    return ts.tv_sec;
}

// the JSON type of the chat API (common_json in newer trees, nlohmann's ordered_json in older
// ones): values cross between the two as JSON text
template <typename R, typename A> A chat_json_of(R (*)(const A &));
using chat_json = std::decay_t<decltype(chat_json_of(&common_chat_msgs_parse_oaicompat))>;

chat_json to_chat(const ojson & value) {
    return chat_json::parse(value.dump());
}

ojson from_chat(const chat_json & value) {
    return ojson::parse(value.dump());
}

namespace {

struct driver_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct template_entry {
    common_chat_templates_ptr              tmpls;
    std::unique_ptr<common_chat_template>  tmpl;  // the default template, for the analysis
    std::string                            source;
};

std::map<long long, template_entry> g_templates;
long long                           g_next_handle = 1;

// the most recent parsers, by their serialised text (a stream of parses reuses one)
std::map<std::string, std::shared_ptr<common_peg_arena>> g_arenas;
const size_t                                             ARENA_LIMIT = 16;

std::string type_name(const std::exception & e) {
    int    status = 0;
    char * name   = abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status);
    std::string out = status == 0 && name ? name : typeid(e).name();
    std::free(name);
    return out;
}

ojson error_json(const std::string & type, const std::string & message) {
    return ojson{ { "type", type }, { "message", message } };
}

ojson error_json(const std::exception & e) {
    return error_json(type_name(e), e.what());
}

const ojson & need(const ojson & req, const char * key) {
    if (!req.contains(key)) {
        throw driver_error(std::string("request lacks '") + key + "'");
    }
    return req.at(key);
}

template_entry & entry_of(const ojson & req) {
    auto it = g_templates.find(need(req, "handle").get<long long>());
    if (it == g_templates.end()) {
        throw driver_error("unknown template handle");
    }
    return it->second;
}

ojson caps_json(const std::map<std::string, bool> & caps) {
    ojson out = ojson::object();
    for (const auto & [name, value] : caps) {
        out[name] = value;
    }
    return out;
}

ojson msg_json(const common_chat_msg & msg) {
    ojson calls = ojson::array();
    for (const auto & call : msg.tool_calls) {
        calls.push_back({ { "name", call.name }, { "arguments", call.arguments }, { "id", call.id } });
    }
    ojson out{
        { "role", msg.role },
        { "content", msg.content },
        { "reasoning_content", msg.reasoning_content },
        { "tool_calls", calls },
    };
    if (!msg.content_parts.empty()) {
        ojson parts = ojson::array();
        for (const auto & part : msg.content_parts) {
            parts.push_back({ { "type", part.type }, { "text", part.text } });
        }
        out["content_parts"] = parts;
    }
    return out;
}

const char * trigger_type_name(common_grammar_trigger_type type) {
    switch (type) {
        case COMMON_GRAMMAR_TRIGGER_TYPE_TOKEN:        return "TOKEN";
        case COMMON_GRAMMAR_TRIGGER_TYPE_WORD:         return "WORD";
        case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN:      return "PATTERN";
        case COMMON_GRAMMAR_TRIGGER_TYPE_PATTERN_FULL: return "PATTERN_FULL";
    }
    return "UNKNOWN";
}

common_chat_format format_from_name(const std::string & name) {
    for (int i = 0; i < COMMON_CHAT_FORMAT_COUNT; i++) {
        auto format = static_cast<common_chat_format>(i);
        if (name == common_chat_format_name(format)) {
            return format;
        }
    }
    throw driver_error("unknown chat format name: " + name);
}

common_chat_continuation continuation_from_name(const std::string & name) {
    if (name == "none")      return COMMON_CHAT_CONTINUATION_NONE;
    if (name == "auto")      return COMMON_CHAT_CONTINUATION_AUTO;
    if (name == "reasoning") return COMMON_CHAT_CONTINUATION_REASONING;
    if (name == "content")   return COMMON_CHAT_CONTINUATION_CONTENT;
    throw driver_error("unknown continue_final_message: " + name);
}

// --- ops ------------------------------------------------------------------------------

ojson op_hello() {
    return ojson{
        { "build_number", DRIVER_BUILD_NUMBER },
        { "commit", DRIVER_BUILD_COMMIT },
        { "analysis", DRIVER_HAS_ANALYSIS == 1 },
        { "ops", { "hello", "init", "apply", "parse", "stream", "analyze", "quit" } },
    };
}

ojson op_init(const ojson & req) {
    template_entry entry;
    std::string    bos = req.value("bos_token", "");
    std::string    eos = req.value("eos_token", "");
    entry.tmpls  = common_chat_templates_init(nullptr, need(req, "template").get<std::string>(), bos, eos);
    entry.source = common_chat_templates_source(entry.tmpls.get());
    ojson out{
        { "source", entry.source },
        { "caps", caps_json(common_chat_templates_get_caps(entry.tmpls.get())) },
    };
    // llama-server's default for enable_thinking applies a request: that may throw where
    // the initialisation did not
    try {
        out["supports_enable_thinking"] = common_chat_templates_support_enable_thinking(entry.tmpls.get());
    } catch (const std::exception & e) {
        out["supports_enable_thinking"]           = nullptr;
        out["supports_enable_thinking_exception"] = error_json(e);
    }
    entry.tmpl = std::make_unique<common_chat_template>(entry.source, bos, eos);
    long long handle = g_next_handle++;
    g_templates.emplace(handle, std::move(entry));
    out["handle"] = handle;
    return out;
}

void op_forget(const ojson & req) {
    g_templates.erase(need(req, "handle").get<long long>());
}

common_chat_templates_inputs inputs_of(const ojson & r) {
    common_chat_templates_inputs inputs;
    inputs.messages = common_chat_msgs_parse_oaicompat(to_chat(need(r, "messages")));
    if (r.contains("tools") && !r.at("tools").is_null()) {
        inputs.tools = common_chat_tools_parse_oaicompat(to_chat(r.at("tools")));
    }
    inputs.tool_choice           = common_chat_tool_choice_parse_oaicompat(r.value("tool_choice", "auto"));
    inputs.parallel_tool_calls   = r.value("parallel_tool_calls", false);
    inputs.enable_thinking       = r.value("enable_thinking", true);
    inputs.reasoning_format      = common_reasoning_format_from_name(r.value("reasoning_format", "deepseek"));
    inputs.add_generation_prompt = r.value("add_generation_prompt", true);
    inputs.continue_final_message = continuation_from_name(r.value("continue_final_message", "none"));
    inputs.force_pure_content    = r.value("force_pure_content", false);
    inputs.use_jinja             = true;
    if (r.contains("chat_template_kwargs")) {
        for (const auto & [key, value] : r.at("chat_template_kwargs").items()) {
            inputs.chat_template_kwargs[key] = value.dump();
        }
    }
    if (r.contains("json_schema") && !r.at("json_schema").is_null()) {
        inputs.json_schema = r.at("json_schema").dump();
    }
    if (r.contains("now")) {
        inputs.now = std::chrono::system_clock::time_point(std::chrono::seconds(r.at("now").get<long long>()));
    }
    return inputs;
}

ojson params_json(const common_chat_params & p) {
    ojson triggers = ojson::array();
    for (const auto & t : p.grammar_triggers) {
        triggers.push_back({ { "type", trigger_type_name(t.type) }, { "value", t.value }, { "token", t.token } });
    }
    return ojson{
        { "format", common_chat_format_name(p.format) },
        { "format_id", static_cast<int>(p.format) },
        { "generation_prompt", p.generation_prompt },
        { "prompt", p.prompt },
        { "grammar", p.grammar },
        { "grammar_lazy", p.grammar_lazy },
        { "grammar_triggers", triggers },
        { "preserved_tokens", p.preserved_tokens },
        { "additional_stops", p.additional_stops },
        { "supports_thinking", p.supports_thinking },
        { "thinking_start_tag", p.thinking_start_tag },
        { "thinking_end_tags", p.thinking_end_tags },
        { "message_delimiters", from_chat(p.message_delimiters.to_json()) },
        { "parser", p.parser },
    };
}

ojson op_apply(const ojson & req) {
    auto & entry  = entry_of(req);
    auto   inputs = inputs_of(need(req, "request"));
    auto   start  = std::chrono::steady_clock::now();
    auto   params = common_chat_templates_apply(entry.tmpls.get(), inputs);
    auto   us     = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    return ojson{ { "params", params_json(params) }, { "us", us.count() } };
}

std::shared_ptr<common_peg_arena> arena_of(const std::string & text) {
    auto it = g_arenas.find(text);
    if (it != g_arenas.end()) {
        return it->second;
    }
    auto arena = std::make_shared<common_peg_arena>();
    if (!text.empty()) {
        arena->load(text);
    }
    if (g_arenas.size() >= ARENA_LIMIT) {
        g_arenas.clear();
    }
    g_arenas.emplace(text, arena);
    return arena;
}

common_chat_parser_params parser_params_of(const ojson & req) {
    common_chat_parser_params params;
    params.format               = format_from_name(req.value("format", "peg-native"));
    params.reasoning_format     = common_reasoning_format_from_name(req.value("reasoning_format", "deepseek"));
    params.reasoning_in_content = req.value("reasoning_in_content", false);
    params.generation_prompt    = req.value("generation_prompt", "");
    params.parse_tool_calls     = req.value("parse_tool_calls", true);
    params.parser               = *arena_of(req.value("parser", ""));
    return params;
}

ojson parse_once(const std::string & input, bool is_partial, const common_chat_parser_params & params) {
    try {
        return ojson{ { "result", msg_json(common_chat_parse(input, is_partial, params)) }, { "exception", nullptr } };
    } catch (const std::exception & e) {
        return ojson{ { "result", nullptr }, { "exception", error_json(e) } };
    }
}

ojson op_parse(const ojson & req) {
    auto params = parser_params_of(req);
    auto start  = std::chrono::steady_clock::now();
    auto out    = parse_once(need(req, "input").get<std::string>(), req.value("is_partial", false), params);
    auto us     = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    out["us"]   = us.count();
    return out;
}

// llama-server's streaming: the text so far re-parsed after every UTF-8 character
ojson op_stream(const ojson & req) {
    auto        params = parser_params_of(req);
    std::string input  = need(req, "input").get<std::string>();
    bool        steps  = req.value("steps", true);
    ojson       all    = ojson::array();
    ojson       last   = parse_once("", true, params);
    size_t      count  = 0;
    auto        start  = std::chrono::steady_clock::now();
    size_t      pos    = 0;
    if (input.empty()) {
        count = 1;
        if (steps) {
            all.push_back(last);
        }
    }
    while (pos < input.size()) {
        unsigned char lead = static_cast<unsigned char>(input[pos]);
        size_t len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
        pos = std::min(pos + len, input.size());
        last = parse_once(input.substr(0, pos), true, params);
        count++;
        if (steps) {
            all.push_back(last);
        }
    }
    auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
    ojson out{ { "final", last }, { "prefixes", count }, { "us", us.count() } };
    if (steps) {
        out["steps"] = all;
    }
    return out;
}

#if DRIVER_HAS_ANALYSIS
template <typename T> std::string mode_name(T mode) {
    std::ostringstream os;
    os << mode;
    return os.str();
}

ojson analysis_json(const autoparser::autoparser & a) {
    const auto & f  = a.tools.format;
    const auto & fn = a.tools.function;
    const auto & ar = a.tools.arguments;
    const auto & id = a.tools.call_id;
    return ojson{
        { "jinja_caps", caps_json(a.jinja_caps.to_map()) },
        { "reasoning", { { "mode", mode_name(a.reasoning.mode) }, { "start", a.reasoning.start }, { "end", a.reasoning.end } } },
        { "content",
          { { "mode", mode_name(a.content.mode) },
            { "start", a.content.start },
            { "end", a.content.end },
            { "requires_nonnull_content", a.content.requires_nonnull_content } } },
        { "tools",
          { { "format",
              { { "mode", mode_name(f.mode) },
                { "section_start", f.section_start },
                { "section_end", f.section_end },
                { "per_call_start", f.per_call_start },
                { "per_call_end", f.per_call_end },
                { "fun_name_is_key", f.fun_name_is_key },
                { "tools_array_wrapped", f.tools_array_wrapped },
                { "openai_wrapper_trigger", f.openai_wrapper_trigger },
                { "function_field", f.function_field },
                { "name_field", f.name_field },
                { "args_field", f.args_field },
                { "id_field", f.id_field },
                { "gen_id_field", f.gen_id_field },
                { "parameter_order", f.parameter_order } } },
            { "function",
              { { "name_prefix", fn.name_prefix },
                { "name_suffix", fn.name_suffix },
                { "args_separator", fn.args_separator },
                { "close", fn.close } } },
            { "arguments",
              { { "start", ar.start },
                { "end", ar.end },
                { "name_prefix", ar.name_prefix },
                { "name_suffix", ar.name_suffix },
                { "value_prefix", ar.value_prefix },
                { "value_suffix", ar.value_suffix },
                { "separator", ar.separator },
                { "tolerate_intertag_whitespace", ar.tolerate_intertag_whitespace } } },
            { "call_id", { { "pos", mode_name(id.pos) }, { "prefix", id.prefix }, { "suffix", id.suffix } } } } },
        { "user_start", a.user_start },
        { "assistant_start", a.assistant_start },
        { "preserved_tokens", a.preserved_tokens },
        { "additional_stops", a.additional_stops },
        { "analysis_complete", a.analysis_complete },
    };
}
#endif

ojson op_analyze(const ojson & req) {
    auto & entry = entry_of(req);
    ojson  out   = ojson::object();
#if DRIVER_HAS_ANALYSIS
    try {
        autoparser::autoparser a;
        auto start = std::chrono::steady_clock::now();
        a.analyze_template(*entry.tmpl);
        auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start);
        out["autoparser"]           = analysis_json(a);
        out["autoparser_exception"] = nullptr;
        out["us"]                   = us.count();
    } catch (const std::exception & e) {
        out["autoparser"]           = nullptr;
        out["autoparser_exception"] = error_json(e);
    }
    // llama.cpp's own router on the standard request's shape (one user turn, the request's tools)
    try {
        autoparser::generation_params params;
        params.messages = chat_json::parse(R"([{"role":"user","content":"Hello"}])");
        if (req.contains("tools")) {
            params.tools = to_chat(req.at("tools"));
        }
        out["specialized"] = common_chat_try_specialized_template(*entry.tmpl, entry.source, params).has_value();
    } catch (const std::exception & e) {
        // only a specialised handler throws in there (the router itself compares substrings)
        out["specialized"]           = true;
        out["specialized_exception"] = error_json(e);
    }
#else
    (void) entry;
    throw driver_error("this driver was built without the autoparser analysis (the llama.cpp tree has none)");
#endif
    return out;
}

ojson handle(const ojson & req, bool & quit) {
    std::string op = need(req, "op").get<std::string>();
    if (op == "hello")   return op_hello();
    if (op == "init")    return op_init(req);
    if (op == "forget")  { op_forget(req); return ojson::object(); }
    if (op == "apply")   return op_apply(req);
    if (op == "parse")   return op_parse(req);
    if (op == "stream")  return op_stream(req);
    if (op == "analyze") return op_analyze(req);
    if (op == "quit")    { quit = true; return ojson::object(); }
    throw driver_error("unknown op: " + op);
}

}  // namespace

int main() {
    // the protocol keeps the stdout the process started with; the library's prints go to stderr
    int   proto_fd = dup(STDOUT_FILENO);
    FILE * proto   = proto_fd >= 0 ? fdopen(proto_fd, "w") : nullptr;
    if (!proto || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        std::fprintf(stderr, "driver: cannot set up its output stream\n");
        return 2;
    }
    common_log_set_verbosity_thold(-1);
    std::ios::sync_with_stdio(false);

    std::string line;
    bool        quit = false;
    while (!quit && std::getline(std::cin, line)) {
        if (line.empty()) {
            continue;
        }
        ojson reply;
        ojson id = nullptr;
        try {
            ojson req = ojson::parse(line);
            if (req.contains("id")) {
                id = req.at("id");
            }
            if (req.contains("now") && req.at("now").is_number_integer()) {
                g_fixed_now = req.at("now").get<long long>();
            }
            reply       = handle(req, quit);
            reply["ok"] = true;
        } catch (const driver_error & e) {
            reply = ojson{ { "ok", false }, { "error", error_json("driver", e.what()) } };
        } catch (const std::exception & e) {
            reply = ojson{ { "ok", false }, { "error", error_json(e) } };
        }
        reply["id"] = id;
        std::string text = reply.dump(-1, ' ', false, ojson::error_handler_t::replace);
        std::fwrite(text.data(), 1, text.size(), proto);
        std::fputc('\n', proto);
        std::fflush(proto);
    }
    return 0;
}
