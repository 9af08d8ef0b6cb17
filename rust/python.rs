//! The only PyO3 file: thin classes over the core. Data crosses as Python objects (tuples, lists,
//! str), never as JSON text.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyList, PyTuple};
use pyo3::IntoPyObjectExt;

use crate::event::{Delta, Extracted};
use crate::formats::{Format, Parser, Tools};

/// The one place core failures become Python exceptions; messages name the format and offset.
fn error(format: &str, offset: Option<usize>, msg: &str) -> PyErr {
    match offset {
        Some(at) => PyValueError::new_err(format!("toolparse[{format}] at offset {at}: {msg}")),
        None => PyValueError::new_err(format!("toolparse[{format}]: {msg}")),
    }
}

fn format_of(name: &str) -> PyResult<Format> {
    Format::from_name(name).ok_or_else(|| {
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

fn tools_of(tools: Option<HashMap<String, HashMap<String, String>>>) -> Tools {
    Tools {
        functions: tools.unwrap_or_default(),
    }
}

/// `(content, reasoning, [(index, id, name, arguments), ...])`, or None.
fn delta_to_py(py: Python<'_>, d: Option<Delta>) -> PyResult<PyObject> {
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
    format: Format,
    fed: usize,
}

#[pymethods]
impl PyParser {
    #[new]
    #[pyo3(signature = (format, tools=None))]
    fn new(
        format: &str,
        tools: Option<HashMap<String, HashMap<String, String>>>,
    ) -> PyResult<Self> {
        let f = format_of(format)?;
        Ok(PyParser {
            inner: Parser::new(f, &tools_of(tools)),
            format: f,
            fed: 0,
        })
    }

    fn feed(&mut self, py: Python<'_>, text: PyBackedStr) -> PyResult<PyObject> {
        if self.inner.is_finished() {
            return Err(error(
                self.format.name(),
                Some(self.fed),
                "feed() after finish()",
            ));
        }
        self.fed += text.len();
        let d = self.inner.feed_delta(&text);
        delta_to_py(py, d)
    }

    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let d = self.inner.finish_delta();
        delta_to_py(py, d)
    }

    #[getter]
    fn malformed(&self) -> bool {
        self.inner.malformed()
    }

    #[getter]
    fn format(&self) -> &'static str {
        self.format.name()
    }
}

/// Non-streaming: `(content, reasoning, [(id, name, arguments), ...], malformed)`.
#[pyfunction]
#[pyo3(signature = (format, text, tools=None))]
fn extract(
    py: Python<'_>,
    format: &str,
    text: PyBackedStr,
    tools: Option<HashMap<String, HashMap<String, String>>>,
) -> PyResult<PyObject> {
    let f = format_of(format)?;
    let tools = tools_of(tools);
    let x: Extracted = py.allow_threads(|| Parser::extract(f, &tools, &text));
    let calls = PyList::new(py, x.calls.into_iter().map(|c| (c.id, c.name, c.arguments)))?;
    let t = PyTuple::new(
        py,
        [
            x.content.into_py_any(py)?,
            x.reasoning.into_py_any(py)?,
            calls.into_py_any(py)?,
            x.malformed.into_py_any(py)?,
        ],
    )?;
    Ok(t.into_any().unbind())
}

#[pyfunction]
fn list_formats() -> Vec<&'static str> {
    Format::names()
}

/// Whether `text` is exactly one JSON value (the core's validating scanner).
#[pyfunction]
fn is_json(text: PyBackedStr) -> bool {
    crate::json::is_json(&text)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyParser>()?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(list_formats, m)?)?;
    m.add_function(wrap_pyfunction!(is_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
