//! The minijinja `Environment` that behaves like transformers' jinja2 one:
//! `ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)`
//! with loop controls, the `generation` tag, `tojson` = `json.dumps`,
//! `raise_exception`, `strftime_now`, Python `str()` output, Python string
//! methods, Python `trim`; plus the limits that make untrusted templates
//! safe to run (fuel, recursion, output size).

use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior, Value};

use super::{
    forloop, generation, literals, methods, pyconv, pyjson, pyrepr, pystr, render_state, sandbox, scan, strftime,
};

/// Name under which the chat template is stored in its environment.
pub const TEMPLATE_NAME: &str = "chat_template";

/// Bounds on one render of an untrusted template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// minijinja fuel per render (≈ one unit per instruction, plus one per
    /// 64 bytes of data created); `None` disables the check.
    pub fuel: Option<u64>,
    /// Maximum recursion depth (macros, nested blocks); capped at 500 by minijinja.
    pub recursion_limit: usize,
    /// Maximum size of the rendered text (and of any single serialised value).
    pub max_output_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            fuel: Some(DEFAULT_FUEL),
            recursion_limit: DEFAULT_RECURSION_LIMIT,
            max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
        }
    }
}

/// Default fuel. Real templates need about 0.25 fuel per output byte (qwen3,
/// llama3_1 and deepseek_v3 render a 430 KB, 1,200-message conversation
/// with ~110k fuel), so this allows ~40 MB of chat, while a runaway loop
/// stops after about half a second.
pub const DEFAULT_FUEL: u64 = 10_000_000;
/// Default recursion limit: minijinja's maximum without `stacker`; needs
/// about 512 KiB of stack in release builds and 2 MiB in debug builds.
pub const DEFAULT_RECURSION_LIMIT: usize = 500;
/// Default output limit: 64 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 64 << 20;

/// Normalises template source like jinja2's lexer: `\r\n` and `\r` become `\n`.
pub fn normalize_newlines(source: &str) -> String {
    if !source.contains('\r') {
        return source.to_string();
    }
    source.replace("\r\n", "\n").replace('\r', "\n")
}

/// `raise_exception(message)`: aborts the render with `message`.
fn raise_exception(message: Option<Value>) -> Result<Value, Error> {
    let msg = match &message {
        Some(v) => match v.as_str() {
            Some(s) => s.to_string(),
            None => v.to_string(),
        },
        None => String::new(),
    };
    render_state::with_current(|s| *s.raised.borrow_mut() = Some(msg.clone()));
    Err(Error::new(ErrorKind::InvalidOperation, msg))
}

/// Builds the environment and compiles `source` into it.
pub fn build(source: &str, limits: &Limits) -> Result<(Environment<'static>, bool), Error> {
    let mut env = Environment::new();
    env.set_syntax(
        SyntaxConfig::builder()
            .trim_blocks(true)
            .lstrip_blocks(true)
            .keep_trailing_newline(false)
            .build()
            .expect("default delimiters are valid"),
    );
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_undefined_behavior(UndefinedBehavior::Lenient);
    env.set_debug(false);
    env.set_fuel(limits.fuel);
    env.set_recursion_limit(limits.recursion_limit);
    env.set_formatter(pyrepr::formatter);
    env.set_unknown_method_callback(methods::unknown_method_callback);

    // jinja2 has no `debug` global; a template testing `debug` must see undefined.
    env.remove_global("debug");

    env.add_filter("tojson", pyjson::tojson_filter);
    env.add_filter("trim", pystr::trim_filter);
    env.add_filter("string", pyrepr::string_filter);
    env.add_filter("attr", pyrepr::attr_filter);
    env.add_filter(generation::FILTER_NAME, generation::generation_filter);
    // jinja2 built-ins that minijinja keeps in minijinja-contrib
    env.add_filter("truncate", pyconv::truncate_filter);
    env.add_filter("striptags", minijinja_contrib::filters::striptags);
    env.add_filter("filesizeformat", minijinja_contrib::filters::filesizeformat);
    env.add_function("cycler", minijinja_contrib::globals::cycler);
    env.add_function("joiner", minijinja_contrib::globals::joiner);

    env.add_function("raise_exception", raise_exception);
    env.add_function("strftime_now", strftime::strftime_now);

    env.add_filter(sandbox::GUARD_FILTER, sandbox::guard_filter);
    env.add_filter(sandbox::GUARD_NS_FILTER, sandbox::guard_ns_filter);
    env.add_filter("pprint", pyrepr::pprint_filter);
    env.add_filter("join", pyrepr::join_filter);
    env.add_filter("items", pyrepr::items_filter);
    env.add_filter("dictsort", pyrepr::dictsort_filter);
    env.add_filter("int", pyconv::int_filter);
    env.add_filter("float", pyconv::float_filter);
    env.add_filter("center", pyconv::center_filter);
    env.add_filter("wordcount", pyconv::wordcount_filter);
    env.add_test("sequence", pyconv::is_sequence);
    env.add_test("iterable", pyconv::is_iterable);
    env.add_filter(forloop::ITER_FILTER, forloop::iter_filter);
    env.add_filter("list", pyconv::list_filter);
    env.add_filter("sort", pyconv::sort_filter);
    env.add_filter("unique", pyconv::unique_filter);
    env.add_filter("sum", pyconv::sum_filter);
    env.add_filter("min", pyconv::min_filter);
    env.add_filter("max", pyconv::max_filter);
    env.add_filter("batch", pyconv::batch_filter);
    env.add_filter("slice", pyconv::slice_filter);
    env.add_function("namespace", pyconv::namespace);

    let prepared = prepare_source(source).map_err(|msg| Error::new(ErrorKind::SyntaxError, msg))?;
    env.add_template_owned(TEMPLATE_NAME, prepared.0)?;
    Ok((env, prepared.1))
}

/// The source minijinja compiles: newlines normalised, string literals
/// re-encoded with Python's escape rules, `{% generation %}` turned into
/// filter blocks, `{% set %}` values guarded, `{% for %}` iterables checked. Also says whether
/// the template has generation blocks.
pub fn prepare_source(source: &str) -> Result<(String, bool), String> {
    let normalized = normalize_newlines(source);
    let literal_edits = literals::literal_edits(&normalized)?;
    let normalized = if literal_edits.is_empty() { normalized } else { scan::apply_edits(&normalized, literal_edits) };
    let mut edits = generation::generation_edits(&normalized);
    let has_generation = !edits.is_empty();
    edits.extend(sandbox::set_guard_edits(&normalized)?);
    edits.extend(forloop::for_edits(&normalized));
    Ok((scan::apply_edits(&normalized, edits), has_generation))
}
