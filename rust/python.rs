//! The PyO3 binding (with `python/models.rs`): thin classes over the core. Data crosses as Python
//! objects (tuples, lists, str; the facade's `DeltaMessages` from `feed_message`), never as JSON
//! text.

use std::borrow::Cow;
use std::collections::HashMap;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use pyo3::IntoPyObjectExt;

use crate::event::{Delta, Extracted};
use crate::formats::{Format, Parser, RawSchemaNode, Setup, Tools};
use crate::reasoning::Reasoning;

mod models;

/// The one place core failures become Python exceptions; messages name the format and offset.
fn error(format: &str, offset: Option<usize>, msg: &str) -> PyErr {
    match offset {
        Some(at) => PyValueError::new_err(format!("toolparse[{format}] at offset {at}: {msg}")),
        None => PyValueError::new_err(format!("toolparse[{format}]: {msg}")),
    }
}

fn format_of(name: &str) -> PyResult<Format> {
    Format::lookup(name).ok_or_else(|| {
        error(
            name,
            None,
            &format!(
                "unknown format; known formats: {}",
                Format::names().join(", ")
            ),
        )
    })
}

/// The setup of a parser: a tool format (or None) and a reasoning format (or None).
fn setup_of(
    format: Option<&str>,
    reasoning: Option<&str>,
    started: Option<bool>,
) -> PyResult<Setup> {
    let format = format.map(format_of).transpose()?;
    let reasoning = reasoning
        .map(|r| {
            Reasoning::lookup(r).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "toolparse: unknown reasoning format {r:?}; known reasoning formats: {}",
                    Reasoning::names().join(", ")
                ))
            })
        })
        .transpose()?;
    if let (Some(f), Some(r)) = (format, reasoning) {
        if Format::of_reasoning(r).is_some_and(|own| own != f) {
            return Err(PyValueError::new_err(format!(
                "toolparse: reasoning format '{}' is parsed by the '{}' tool format, not '{}'",
                r.name(),
                r.spec().tool_format.unwrap_or_default(),
                f.name()
            )));
        }
    }
    if format.is_none() && reasoning.is_none() {
        return Err(PyValueError::new_err(
            "toolparse: neither a tool format nor a reasoning format given",
        ));
    }
    Ok(Setup {
        format,
        reasoning,
        started,
    })
}

/// The name a parser reports: its tool format's, else its reasoning format's.
fn setup_name(s: &Setup) -> &'static str {
    match (s.format, s.reasoning) {
        (Some(f), _) => f.name(),
        (None, Some(r)) => Format::of_reasoning(r).map_or(r.name(), Format::name),
        (None, None) => "",
    }
}

/// function name -> parameter name -> the JSON Schema types it admits (a list of str).
type ToolTypes = HashMap<String, HashMap<String, Vec<String>>>;

/// function name -> its schema tree: `(types, container, children, other)` nodes.
type Schemas = HashMap<String, Vec<RawSchemaNode>>;

fn tools_of(tools: Option<ToolTypes>, schemas: Option<Schemas>) -> Tools {
    match schemas {
        Some(schemas) => Tools::with_schemas(tools.unwrap_or_default(), schemas),
        None => Tools::new(tools.unwrap_or_default()),
    }
}

/// The UTF-8 text of a Python str, borrowed without a copy (the interpreter's cached UTF-8).
/// Lone surrogates (which UTF-8 cannot carry) become U+FFFD, as in the Python twin.
fn text_of<'a>(s: &'a Bound<'_, PyString>) -> Cow<'a, str> {
    match s.to_str() {
        Ok(text) => Cow::Borrowed(text),
        // A lone surrogate: the UnicodeEncodeError is dropped with `Err`; the lossy copy instead.
        Err(_) => s.to_string_lossy(),
    }
}

/// `(content, reasoning, [(index, id, name, arguments), ...])`, or None.
fn delta_to_py(py: Python<'_>, d: Option<Delta>) -> PyResult<Py<PyAny>> {
    let Some(d) = d else { return Ok(py.None()) };
    let calls = if d.calls.is_empty() {
        py.None()
    } else {
        let items = d.calls.into_iter().map(|c| {
            let (id, name) = match c.start {
                Some((id, name)) => (id, Some(name)),
                None => (None, None),
            };
            (c.index, id, name, c.args)
        });
        PyList::new(py, items)?.into_py_any(py)?
    };
    (d.content, d.reasoning, calls).into_py_any(py)
}

/// A streaming parser for one response.
#[pyclass(module = "toolparse._core", name = "Parser")]
struct PyParser {
    inner: Parser,
    format: &'static str,
    fed: usize,
    /// Characters fed (as the parser reads them: a lone surrogate counts as its U+FFFD).
    chars: usize,
    /// Where the tool machine's raw text starts, in characters (None while reasoning is open).
    machine_from: Option<usize>,
    /// Makes the id of a call the format gives none (`feed_message`; once per such call).
    new_id: Option<Py<PyAny>>,
    /// The classes `feed_message` builds (None: the facade's, `set_models`).
    models: Option<Py<models::Models>>,
    /// With `record`: each call sent so far, (name, arguments streamed), for a server's
    /// bookkeeping (vLLM's `streamed_args_for_tool`).
    sent: Option<Vec<(String, String)>>,
}

#[pymethods]
impl PyParser {
    #[new]
    #[pyo3(signature = (format, tools=None, reasoning=None, reasoning_started=None, schemas=None))]
    fn new(
        format: Option<&str>,
        tools: Option<ToolTypes>,
        reasoning: Option<&str>,
        reasoning_started: Option<bool>,
        schemas: Option<Schemas>,
    ) -> PyResult<Self> {
        let setup = setup_of(format, reasoning, reasoning_started)?;
        Ok(PyParser::of(
            Parser::with(setup, &tools_of(tools, schemas)),
            setup_name(&setup),
            None,
        ))
    }

    fn feed(&mut self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Py<PyAny>> {
        let d = self.feed_core(text)?;
        delta_to_py(py, d)
    }

    /// `feed`, returning the facade's `DeltaMessage` (or None) built here: what
    /// `ToolCallStream.feed` returns on the Rust backend.
    fn feed_message(
        &mut self,
        py: Python<'_>,
        delta_text: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let Ok(text) = delta_text.cast::<PyString>() else {
            return Err(PyTypeError::new_err(format!(
                "delta_text must be a str, not {}",
                delta_text.get_type().name()?
            )));
        };
        let d = self.feed_core(text)?;
        self.message(py, d)
    }

    /// `finish`, returning the facade's `DeltaMessage` (or None).
    fn finish_message(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = self.finish_core();
        self.message(py, d)
    }

    /// With `record`: `[(name, arguments), ...]`, each call sent so far (its arguments as
    /// streamed); None without.
    #[getter]
    fn sent_calls(&self) -> Option<Vec<(String, String)>> {
        self.sent.clone()
    }

    /// With `record`: how many calls were sent so far (`len(sent_calls)` without the copy); 0
    /// without.
    #[getter]
    fn sent_count(&self) -> usize {
        self.sent.as_ref().map_or(0, Vec::len)
    }

    /// Feeds several deltas in one call (batched tokens, speculative decoding); one result each.
    // pyo3 extracts a Python list argument into a Vec; a slice cannot be extracted
    #[allow(clippy::needless_pass_by_value)]
    fn feed_many(
        &mut self,
        py: Python<'_>,
        texts: Vec<Bound<'_, PyString>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        texts.iter().map(|t| self.feed(py, t)).collect()
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let d = self.finish_core();
        delta_to_py(py, d)
    }

    /// Where the tool machine's raw text starts: characters into the text fed (0 without a
    /// think-block front); None while the think block is open, known at the latest after finish.
    #[getter]
    fn machine_from(&self) -> Option<usize> {
        self.machine_from
    }

    #[getter]
    fn malformed(&self) -> bool {
        self.inner.malformed()
    }

    #[getter]
    fn truncated(&self) -> bool {
        self.inner.truncated()
    }

    #[getter]
    fn dropped_calls(&self) -> Vec<usize> {
        self.inner.dropped_calls().to_vec()
    }

    #[getter]
    fn unfinished_call(&self) -> Option<usize> {
        self.inner.unfinished_call()
    }

    #[getter]
    fn open_call(&self) -> Option<usize> {
        self.inner.open_call()
    }

    #[getter]
    fn format(&self) -> &'static str {
        self.format
    }
}

impl PyParser {
    fn of(inner: Parser, format: &'static str, new_id: Option<Py<PyAny>>) -> PyParser {
        let machine_from = inner.machine_from().map(|_| 0);
        PyParser {
            inner,
            format,
            fed: 0,
            chars: 0,
            machine_from,
            new_id,
            models: None,
            sent: None,
        }
    }

    fn message(&self, py: Python<'_>, d: Option<Delta>) -> PyResult<Py<PyAny>> {
        let m = match &self.models {
            Some(m) => m.get(),
            None => models::get(py)?,
        };
        models::delta_message(py, m, d, self.new_id.as_ref())
    }

    fn finish_core(&mut self) -> Option<Delta> {
        let d = self.inner.finish_delta();
        self.note_hand_over();
        self.record(d.as_ref());
        d
    }

    /// With `record`: notes the calls `d` starts and the arguments it streams.
    fn record(&mut self, d: Option<&Delta>) {
        let (Some(sent), Some(d)) = (self.sent.as_mut(), d) else {
            return;
        };
        for c in &d.calls {
            if let Some((_, name)) = &c.start {
                sent.push((name.clone(), String::new()));
            }
            if let (Some(args), Some(call)) = (&c.args, sent.get_mut(c.index)) {
                call.1.push_str(args);
            }
        }
    }

    fn feed_core(&mut self, s: &Bound<'_, PyString>) -> PyResult<Option<Delta>> {
        let text = text_of(s);
        if self.inner.is_finished() {
            return Err(error(self.format, Some(self.fed), "feed() after finish()"));
        }
        self.fed += text.len();
        if self.machine_from.is_none() {
            // Counted only while reasoning is open: Python's length is O(1), exact unless a
            // lone surrogate made a lossy copy.
            self.chars += match &text {
                Cow::Borrowed(_) => s.len()?,
                Cow::Owned(t) => t.chars().count(),
            };
        }
        let d = self.inner.feed_delta(&text);
        self.note_hand_over();
        self.record(d.as_ref());
        Ok(d)
    }

    /// After a feed or finish: the hand-over point in characters, once the core has one.
    fn note_hand_over(&mut self) {
        if self.machine_from.is_none() && self.inner.machine_from().is_some() {
            self.machine_from = Some(self.chars.saturating_sub(self.inner.handover_chars()));
        }
    }
}

/// Non-streaming: `(content, reasoning, [(id, name, arguments), ...], malformed, truncated)`.
#[pyfunction]
#[pyo3(signature = (format, text, tools=None, reasoning=None, reasoning_started=None, schemas=None))]
fn extract(
    py: Python<'_>,
    format: Option<&str>,
    text: &Bound<'_, PyString>,
    tools: Option<ToolTypes>,
    reasoning: Option<&str>,
    reasoning_started: Option<bool>,
    schemas: Option<Schemas>,
) -> PyResult<Py<PyAny>> {
    let setup = setup_of(format, reasoning, reasoning_started)?;
    extract_in(py, setup, &tools_of(tools, schemas), text)
}

fn extract_in(
    py: Python<'_>,
    setup: Setup,
    tools: &Tools,
    text: &Bound<'_, PyString>,
) -> PyResult<Py<PyAny>> {
    let text = text_of(text);
    let x: Extracted = py.detach(|| Parser::extract_with(setup, tools, &text));
    extracted_to_py(py, x)
}

/// A format with a request's tools, converted once (per `get_parser`): every stream and every
/// non-streaming call of that parser reuses it instead of converting the tools again.
#[pyclass(module = "toolparse._core", name = "Format", frozen)]
struct PyFormat {
    setup: Setup,
    tools: Tools,
}

#[pymethods]
impl PyFormat {
    #[new]
    #[pyo3(signature = (format, tools=None, reasoning=None, reasoning_started=None, schemas=None))]
    fn new(
        format: Option<&str>,
        tools: Option<ToolTypes>,
        reasoning: Option<&str>,
        reasoning_started: Option<bool>,
        schemas: Option<Schemas>,
    ) -> PyResult<Self> {
        Ok(PyFormat {
            setup: setup_of(format, reasoning, reasoning_started)?,
            tools: tools_of(tools, schemas),
        })
    }

    /// A new streaming parser for one response; `new_id()` makes the id of a call whose format
    /// gives none, for `feed_message` / `finish_message` (called once per such call); `models`:
    /// the classes they build (default: the facade's); `record`: keep `sent_calls`.
    #[pyo3(signature = (new_id=None, models=None, record=false))]
    fn parser(
        &self,
        new_id: Option<Py<PyAny>>,
        models: Option<Py<models::Models>>,
        record: bool,
    ) -> PyParser {
        let mut p = PyParser::of(
            Parser::with(self.setup, &self.tools),
            setup_name(&self.setup),
            new_id,
        );
        p.models = models;
        p.sent = record.then(Vec::new);
        p
    }

    /// Non-streaming, as `extract`.
    fn extract(&self, py: Python<'_>, text: &Bound<'_, PyString>) -> PyResult<Py<PyAny>> {
        extract_in(py, self.setup, &self.tools, text)
    }

    #[getter]
    fn name(&self) -> Option<&'static str> {
        self.setup.format.map(Format::name)
    }
}

/// `(content, reasoning, [(id, name, arguments), ...], malformed, truncated)`.
fn extracted_to_py(py: Python<'_>, x: Extracted) -> PyResult<Py<PyAny>> {
    let calls = PyList::new(py, x.calls.into_iter().map(|c| (c.id, c.name, c.arguments)))?;
    let t = PyTuple::new(
        py,
        [
            x.content.into_py_any(py)?,
            x.reasoning.into_py_any(py)?,
            calls.into_py_any(py)?,
            x.malformed.into_py_any(py)?,
            x.truncated.into_py_any(py)?,
        ],
    )?;
    Ok(t.into_any().unbind())
}

/// Streams `chunks` one delta at a time through the core and returns what a client would have
/// reconstructed, in the shape of `extract`: the core's per-delta work without Python objects
/// per delta (for replaying recorded streams and for measuring the core alone).
#[pyfunction]
#[pyo3(signature = (format, chunks, tools=None, reasoning=None, reasoning_started=None, schemas=None))]
fn replay(
    py: Python<'_>,
    format: Option<&str>,
    chunks: &Bound<'_, PyList>,
    tools: Option<ToolTypes>,
    reasoning: Option<&str>,
    reasoning_started: Option<bool>,
    schemas: Option<Schemas>,
) -> PyResult<Py<PyAny>> {
    let setup = setup_of(format, reasoning, reasoning_started)?;
    let name = setup_name(&setup);
    let mut p = Parser::with(setup, &tools_of(tools, schemas));
    // One pass over the list: each chunk is read where it lies and fed at once.
    for (k, item) in chunks.iter().enumerate() {
        let text = item
            .cast::<PyString>()
            .map_err(|_| error(name, None, &format!("chunk {k} is not a str")))?;
        p.push(&text_of(text));
    }
    extracted_to_py(py, p.into_extracted())
}

/// The facade's delta model classes, handed over once at import: `feed_message` builds them.
#[pyfunction]
fn set_models(
    message: &Bound<'_, PyType>,
    call: &Bound<'_, PyType>,
    function: &Bound<'_, PyType>,
) -> PyResult<()> {
    models::set(message, call, function)
}

#[pyfunction]
fn list_formats() -> Vec<&'static str> {
    Format::names()
}

#[pyfunction]
fn list_reasoning_formats() -> Vec<&'static str> {
    Reasoning::names()
}

/// The JSON data of a spec entry handed over as Python objects (dict, list, str, int, float,
/// bool, None), for the spec's typed reader. Refuses other types and nesting past 64 levels.
fn json_of(v: &Bound<'_, PyAny>, depth: usize) -> PyResult<serde_json::Value> {
    use serde_json::Value;
    let bad = |what: &str| PyValueError::new_err(format!("format spec: {what}"));
    if depth > 64 {
        return Err(bad("nested too deep"));
    }
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = v.cast::<PyInt>() {
        let n: i64 = i.extract().map_err(|_| bad("an integer out of range"))?;
        return Ok(Value::from(n));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return serde_json::Number::from_f64(f.value())
            .map(Value::Number)
            .ok_or_else(|| bad("a float that is not finite"));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, item) in d.iter() {
            let k = k
                .cast::<PyString>()
                .map_err(|_| bad("a key that is not a str"))?;
            map.insert(k.to_str()?.to_owned(), json_of(&item, depth + 1)?);
        }
        return Ok(Value::Object(map));
    }
    if v.cast::<PyList>().is_ok() || v.cast::<PyTuple>().is_ok() {
        let items: PyResult<Vec<Value>> = v
            .try_iter()?
            .map(|item| json_of(&item?, depth + 1))
            .collect();
        return Ok(Value::Array(items?));
    }
    Err(PyTypeError::new_err(format!(
        "format spec: a value of type {} (JSON data only)",
        v.get_type().name()?
    )))
}

/// Registers a format from its spec entry (a dict in the schema of `formats/<name>.json`'s
/// "spec"), with a reasoning entry (an entry of `_reasoning.json`'s shape) if given; the caller
/// (`toolparse.register_format`) has validated both. Returns the canonical name.
#[pyfunction]
#[pyo3(signature = (spec, reasoning=None, replace=false))]
fn register_format(
    spec: &Bound<'_, PyAny>,
    reasoning: Option<&Bound<'_, PyAny>>,
    replace: bool,
) -> PyResult<&'static str> {
    let refused = |e: String| PyValueError::new_err(format!("format spec: {e}"));
    let entry = serde_json::from_value(json_of(spec, 0)?).map_err(|e| refused(e.to_string()))?;
    let reasoning = match reasoning {
        Some(r) => {
            Some(serde_json::from_value(json_of(r, 0)?).map_err(|e| refused(e.to_string()))?)
        }
        None => None,
    };
    Format::register(entry, reasoning, replace)
        .map(Format::name)
        .map_err(refused)
}

/// Whether `text` is exactly one JSON value (the core's validating scanner).
#[pyfunction]
fn is_json(text: &Bound<'_, PyString>) -> bool {
    crate::json::is_json(&text_of(text))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyParser>()?;
    m.add_class::<PyFormat>()?;
    m.add_class::<models::Models>()?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(list_formats, m)?)?;
    m.add_function(wrap_pyfunction!(list_reasoning_formats, m)?)?;
    m.add_function(wrap_pyfunction!(is_json, m)?)?;
    m.add_function(wrap_pyfunction!(register_format, m)?)?;
    m.add_function(wrap_pyfunction!(set_models, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
