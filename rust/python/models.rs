//! Binding only: builds a stream's delta models (`DeltaMessage`, `DeltaToolCall`,
//! `DeltaFunctionCall`, pydantic v2 models) from a core `Delta` without validation. The facade's
//! own models (`set_models`) come out exactly as the Python fast constructors `DeltaMessage._fast`
//! / `_fast_tool_args` make them (see the comment block in `models/_base.py`): same `__dict__`
//! (same keys, same order), the same fields set, and `__pydantic_extra__` /
//! `__pydantic_private__` None. A `DeltaModels` of another layout builds a server's own classes
//! (vLLM's: `integrations/vllm.py`). No parsing here.
//!
//! An instance is allocated with its class's `tp_new` and empty arguments (`object.__new__`:
//! `BaseModel` defines no `__new__`); its field values and the three slots are stored with
//! `PyObject_GenericSetAttr`, which bypasses `BaseModel`'s Python `__setattr__` (on 3.11+ the values
//! go in the instance's inline values, which CPython turns into its `__dict__`, in insertion
//! order, when something asks for it; before 3.11 in its dict).

use std::os::raw::c_int;
use std::ptr;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyString, PyTuple, PyType};

use crate::event::Delta;

/// The model classes and how their instances are laid out: the facade's, handed over once
/// (`set_models`), or a server's (`_core.DeltaModels`, given to `Format.parser`). `message` is
/// the class of a delta's result, `call` of one call in it, `function` of a call's function
/// (None where the layout has none).
#[pyclass(module = "toolparse._core", name = "DeltaModels", frozen)]
pub(super) struct Models {
    message: Class,
    call: Class,
    function: Option<Class>,
    layout: Layout,
}

/// How a layout differs from the facade's models.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Layout {
    /// toolparse's models: a call's `__dict__` is index, id, type, function; no extra fields.
    Toolparse,
    /// vLLM's (`vllm.entrypoints.generate.base.protocol`): a call's `__dict__` is id, type,
    /// index, function; the message and the call allow extra fields (`__pydantic_extra__` a new
    /// empty dict each), the function does not; fields sets inserted in `__dict__` order.
    Vllm,
    /// SGLang's (`sglang.srt.function_call.core_types`): a `StreamingParseResult(normal_text,
    /// calls)` for every delta, also one with nothing new; each call a `ToolCallItem(tool_index,
    /// name, parameters)`, the name on its first fragment only; reasoning is not part of it.
    Sglang,
}

#[pymethods]
impl Models {
    /// `DeltaModels(message, call, function, layout)`: a server's delta classes for
    /// `Format.parser(models=...)`; `layout` is `"toolparse"` or `"vllm"` (`DeltaMessage`,
    /// `DeltaToolCall`, `DeltaFunctionCall`) or `"sglang"` (`StreamingParseResult`, `ToolCallItem`, None).
    #[new]
    fn py_new(
        message: &Bound<'_, PyType>,
        call: &Bound<'_, PyType>,
        function: Option<&Bound<'_, PyType>>,
        layout: &str,
    ) -> PyResult<Models> {
        let layout = match layout {
            "toolparse" => Layout::Toolparse,
            "vllm" => Layout::Vllm,
            "sglang" => Layout::Sglang,
            other => {
                return Err(PyValueError::new_err(format!(
                    "toolparse: unknown delta model layout {other:?} (expected \"toolparse\", \"vllm\" or \"sglang\")"
                )))
            }
        };
        if function.is_some() == (layout == Layout::Sglang) {
            return Err(PyValueError::new_err(format!(
                "toolparse: the {layout:?} layout takes {} function class",
                if layout == Layout::Sglang { "no" } else { "a" }
            )));
        }
        Models::of(message, call, function, layout)
    }
}

impl Models {
    fn of(
        message: &Bound<'_, PyType>,
        call: &Bound<'_, PyType>,
        function: Option<&Bound<'_, PyType>>,
        layout: Layout,
    ) -> PyResult<Models> {
        Ok(Models {
            message: Class::of(message)?,
            call: Class::of(call)?,
            function: function.map(Class::of).transpose()?,
            layout,
        })
    }
}

struct Class {
    cls: Py<PyType>,
    new: ffi::newfunc,
    /// The slot descriptors of `__pydantic_fields_set__`, `__pydantic_extra__` and
    /// `__pydantic_private__` with their setter, where the interpreter gives it (3.10+: slots of
    /// static types are readable): the store `PyObject_GenericSetAttr` makes, without its lookup.
    slots: Option<[(Py<PyAny>, ffi::descrsetfunc); 3]>,
}

const SLOTS: [&str; 3] = [
    "__pydantic_fields_set__",
    "__pydantic_extra__",
    "__pydantic_private__",
];

static MODELS: PyOnceLock<Models> = PyOnceLock::new();

impl Class {
    fn of(cls: &Bound<'_, PyType>) -> PyResult<Class> {
        // SAFETY: `cls` is a live type object; a heap type's slots are readable on every version.
        let slot = unsafe { ffi::PyType_GetSlot(cls.as_type_ptr(), ffi::Py_tp_new) };
        if slot.is_null() {
            return Err(PyTypeError::new_err(format!(
                "toolparse: {} cannot be instantiated",
                cls.name()?
            )));
        }
        // SAFETY: the Py_tp_new slot holds a `newfunc`.
        let new = unsafe { std::mem::transmute::<*mut std::ffi::c_void, ffi::newfunc>(slot) };
        Ok(Class {
            cls: cls.clone().unbind(),
            new,
            slots: slot_setters(cls),
        })
    }

    /// A new instance without `__init__`: its class's `tp_new` with empty arguments.
    fn alloc<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let args = PyTuple::empty(py);
        // SAFETY: `new` is the class's own tp_new, called with the class and an empty tuple.
        unsafe {
            let obj = (self.new)(
                self.cls.as_ptr().cast::<ffi::PyTypeObject>(),
                args.as_ptr(),
                ptr::null_mut(),
            );
            Bound::from_owned_ptr_or_err(py, obj)
        }
    }
}

/// The three slots' descriptors and setters, if every one is a slot's member descriptor whose
/// setter `PyType_GetSlot` gives (None before 3.10, where it gives none for a static type; the
/// instances are then built with `PyObject_GenericSetAttr` alone).
fn slot_setters(cls: &Bound<'_, PyType>) -> Option<[(Py<PyAny>, ffi::descrsetfunc); 3]> {
    let py = cls.py();
    let mut out = Vec::with_capacity(3);
    for name in SLOTS {
        // The class attribute of a slot is its member descriptor itself.
        let descr = cls.getattr(name).ok()?;
        let kind = descr.get_type();
        if kind.name().ok()? != "member_descriptor" {
            return None;
        }
        // SAFETY: `kind` is a live type object.
        let slot = unsafe { ffi::PyType_GetSlot(kind.as_type_ptr(), ffi::Py_tp_descr_set) };
        if slot.is_null() {
            let _ = PyErr::take(py);
            return None;
        }
        // SAFETY: the Py_tp_descr_set slot holds a `descrsetfunc`.
        let set = unsafe { std::mem::transmute::<*mut std::ffi::c_void, ffi::descrsetfunc>(slot) };
        out.push((descr.unbind(), set));
    }
    out.try_into().ok()
}

/// `_core.set_models(DeltaMessage, DeltaToolCall, DeltaFunctionCall)`: once per process (again
/// with the same classes is a no-op).
pub(super) fn set(
    message: &Bound<'_, PyType>,
    call: &Bound<'_, PyType>,
    function: &Bound<'_, PyType>,
) -> PyResult<()> {
    let py = message.py();
    if let Some(m) = MODELS.get(py) {
        let same_function = m.function.as_ref().is_some_and(|f| f.cls.is(function));
        if m.message.cls.is(message) && m.call.cls.is(call) && same_function {
            return Ok(());
        }
        return Err(PyRuntimeError::new_err(
            "toolparse: the delta model classes are already set",
        ));
    }
    let _ = MODELS.set(
        py,
        Models::of(message, call, Some(function), Layout::Toolparse)?,
    );
    Ok(())
}

pub(super) fn get(py: Python<'_>) -> PyResult<&'static Models> {
    MODELS.get(py).ok_or_else(|| {
        PyRuntimeError::new_err("toolparse: the delta model classes are not set (set_models)")
    })
}

fn check(py: Python<'_>, rc: c_int) -> PyResult<()> {
    if rc < 0 {
        Err(PyErr::fetch(py))
    } else {
        Ok(())
    }
}

/// A model instance of `class` with `fields` (name, value) in its `__dict__`, in that order, the
/// names `fields_set` gives (in the order the layout's constructors insert them) as its fields
/// set, and a new empty dict as `__pydantic_extra__` where `extra` (else None).
fn instance<'py>(
    py: Python<'py>,
    class: &Class,
    fields: &[(&Bound<'py, PyString>, Bound<'py, PyAny>)],
    fields_set: &[Option<&Bound<'py, PyString>>],
    extra: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let obj = class.alloc(py)?;
    let ptr = obj.as_ptr();
    // SAFETY: the pointers are live objects; a fresh set is only touched here until returned.
    unsafe {
        let put = |name: &Bound<'py, PyString>, value: *mut ffi::PyObject| {
            check(py, ffi::PyObject_GenericSetAttr(ptr, name.as_ptr(), value))
        };
        for (name, value) in fields {
            put(name, value.as_ptr())?;
        }
        let set = Bound::from_owned_ptr_or_err(py, ffi::PySet_New(ptr::null_mut()))?;
        for name in fields_set.iter().flatten() {
            check(py, ffi::PySet_Add(set.as_ptr(), name.as_ptr()))?;
        }
        let extra = if extra {
            Bound::from_owned_ptr_or_err(py, ffi::PyDict_New())?
        } else {
            py.None().into_bound(py)
        };
        let values = [set.as_ptr(), extra.as_ptr(), ffi::Py_None()];
        match &class.slots {
            Some(slots) => {
                for ((descr, store), value) in slots.iter().zip(values) {
                    check(py, store(descr.as_ptr(), ptr, value))?;
                }
            }
            None => {
                let names = [
                    intern!(py, "__pydantic_fields_set__"),
                    intern!(py, "__pydantic_extra__"),
                    intern!(py, "__pydantic_private__"),
                ];
                for (name, value) in names.into_iter().zip(values) {
                    put(name, value)?;
                }
            }
        }
    }
    Ok(obj)
}

fn opt(py: Python<'_>, s: Option<String>) -> Bound<'_, PyAny> {
    match s {
        Some(s) => PyString::new(py, &s).into_any(),
        None => py.None().into_bound(py),
    }
}

/// `DeltaFunctionCall._fast(name, arguments)`.
fn function<'py>(
    py: Python<'py>,
    m: &Models,
    name: Option<String>,
    args: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let (k_name, k_args) = (intern!(py, "name"), intern!(py, "arguments"));
    let set = [
        name.is_some().then_some(k_name),
        args.is_some().then_some(k_args),
    ];
    let Some(class) = &m.function else {
        return Err(PyRuntimeError::new_err(
            "toolparse: no function class in this layout",
        ));
    };
    instance(
        py,
        class,
        &[(k_name, opt(py, name)), (k_args, opt(py, args))],
        &set,
        false,
    )
}

/// `DeltaToolCall._fast(index, id, type, function)` with `function` given.
fn call<'py>(
    py: Python<'py>,
    m: &Models,
    index: usize,
    id: Option<Bound<'py, PyAny>>,
    function: Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let (k_index, k_id, k_type, k_function) = (
        intern!(py, "index"),
        intern!(py, "id"),
        intern!(py, "type"),
        intern!(py, "function"),
    );
    let index = index.into_pyobject(py)?.into_any();
    let (id, kind, started) = match id {
        None => (py.None().into_bound(py), py.None().into_bound(py), false),
        Some(id) => (id, intern!(py, "function").clone().into_any(), true),
    };
    let set = |k| Some(k).filter(|_| started);
    // (SGLang's layout never gets here: `sglang_result` builds its items.)
    match m.layout {
        Layout::Toolparse | Layout::Sglang => instance(
            py,
            &m.call,
            &[
                (k_index, index),
                (k_id, id),
                (k_type, kind),
                (k_function, function),
            ],
            &[Some(k_index), set(k_id), set(k_type), Some(k_function)],
            false,
        ),
        Layout::Vllm => instance(
            py,
            &m.call,
            &[
                (k_id, id),
                (k_type, kind),
                (k_index, index),
                (k_function, function),
            ],
            &[set(k_id), set(k_type), Some(k_index), Some(k_function)],
            true,
        ),
    }
}

/// `DeltaMessage._fast(content, reasoning, tool_calls)`.
fn message<'py>(
    py: Python<'py>,
    m: &Models,
    content: Option<String>,
    reasoning: Option<String>,
    tool_calls: Bound<'py, PyList>,
    any_calls: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (k_content, k_reasoning, k_calls) = (
        intern!(py, "content"),
        intern!(py, "reasoning"),
        intern!(py, "tool_calls"),
    );
    let (calls_set, content_set, reasoning_set) = (
        any_calls.then_some(k_calls),
        content.is_some().then_some(k_content),
        reasoning.is_some().then_some(k_reasoning),
    );
    let set = match m.layout {
        Layout::Toolparse | Layout::Sglang => [calls_set, content_set, reasoning_set],
        Layout::Vllm => [content_set, reasoning_set, calls_set],
    };
    instance(
        py,
        &m.message,
        &[
            (intern!(py, "role"), py.None().into_bound(py)),
            (k_content, opt(py, content)),
            (k_reasoning, opt(py, reasoning)),
            (k_calls, tool_calls.into_any()),
        ],
        &set,
        m.layout == Layout::Vllm,
    )
}

/// The `DeltaMessage` of one core delta (None for none), as the facade's `_message` builds it: a
/// call's first fragment gets `type="function"` and its id, `new_id()` when the format gave none.
pub(super) fn delta_message(
    py: Python<'_>,
    m: &Models,
    d: Option<Delta>,
    new_id: Option<&Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    if m.layout == Layout::Sglang {
        return sglang_result(py, m, d);
    }
    let Some(d) = d else { return Ok(py.None()) };
    let any_calls = !d.calls.is_empty();
    let n =
        isize::try_from(d.calls.len()).map_err(|_| PyRuntimeError::new_err("too many calls"))?;
    // SAFETY: a new list of `n` empty items, each set exactly once below before it is returned
    // (an error on the way drops the list, whose empty items are NULL, which its dealloc allows).
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n))? };
    for (i, c) in (0..n).zip(d.calls) {
        let made = match c.start {
            None => call(py, m, c.index, None, function(py, m, None, c.args)?)?,
            Some((id, name)) => {
                let id = match (id, new_id) {
                    (Some(id), _) => PyString::new(py, &id).into_any(),
                    (None, Some(f)) => f.bind(py).call0()?,
                    (None, None) => {
                        return Err(PyRuntimeError::new_err(
                            "toolparse: a call without an id and no id source",
                        ))
                    }
                };
                let f = function(py, m, Some(name), c.args)?;
                call(py, m, c.index, Some(id), f)?
            }
        };
        // SAFETY: `i` < `n`; PyList_SetItem steals the reference `into_ptr` hands over.
        check(py, unsafe {
            ffi::PyList_SetItem(list.as_ptr(), i, made.into_ptr())
        })?;
    }
    let list = list.cast_into::<PyList>()?;
    Ok(message(py, m, d.content, d.reasoning, list, any_calls)?.unbind())
}

/// SGLang's `StreamingParseResult` of one core delta, as the integration's `_result` / `_item`
/// build it: `normal_text` the content ("" for none), a `ToolCallItem` per call fragment, and an
/// empty result when there is nothing new.
fn sglang_result(py: Python<'_>, m: &Models, d: Option<Delta>) -> PyResult<Py<PyAny>> {
    let (k_text, k_calls) = (intern!(py, "normal_text"), intern!(py, "calls"));
    let (k_index, k_name, k_params) = (
        intern!(py, "tool_index"),
        intern!(py, "name"),
        intern!(py, "parameters"),
    );
    let (content, calls) = match d {
        Some(d) => (d.content, d.calls),
        None => (None, Vec::new()),
    };
    let n = isize::try_from(calls.len()).map_err(|_| PyRuntimeError::new_err("too many calls"))?;
    // SAFETY: as in `delta_message`: every item is set once before the list is returned.
    let list = unsafe { Bound::from_owned_ptr_or_err(py, ffi::PyList_New(n))? };
    for (i, c) in (0..n).zip(calls) {
        let name = c.start.map(|(_, name)| name);
        let named = name.is_some();
        let params = match c.args {
            Some(a) => PyString::new(py, &a).into_any(),
            None => intern!(py, "").clone().into_any(),
        };
        let item = instance(
            py,
            &m.call,
            &[
                (k_index, c.index.into_pyobject(py)?.into_any()),
                (k_name, opt(py, name)),
                (k_params, params),
            ],
            &[Some(k_index), named.then_some(k_name), Some(k_params)],
            false,
        )?;
        // SAFETY: `i` < `n`; PyList_SetItem steals the reference `into_ptr` hands over.
        check(py, unsafe {
            ffi::PyList_SetItem(list.as_ptr(), i, item.into_ptr())
        })?;
    }
    let text = match content {
        Some(t) => PyString::new(py, &t).into_any(),
        None => intern!(py, "").clone().into_any(),
    };
    Ok(instance(
        py,
        &m.message,
        &[(k_text, text), (k_calls, list)],
        &[Some(k_text), Some(k_calls)],
        false,
    )?
    .unbind())
}
