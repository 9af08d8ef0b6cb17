//! The tools a request offers, as the parameter converters see them: each function's parameters
//! with the [`Kind`] their schema types give, and (for nested parameters) each function's schema
//! tree.

use std::collections::HashMap;
use std::sync::Arc;

use super::{kind_of_types, Kind, T_STRING};

/// JSON Schema facts about the tools a request offers: function name -> parameter name -> how
/// its value is converted, decided once from the types its schema admits. Shared, so a parser's
/// streams reuse one copy.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    pub functions: Arc<HashMap<String, HashMap<String, Kind>>>,
    /// function name -> its schema tree, node 0 the parameters object (the `xml_elements` family's
    /// nested parameters; given only for its formats).
    pub schemas: Arc<HashMap<String, Vec<SchemaNode>>>,
}

/// A node of a function's schema tree: how an element is typed, and the nodes of its elements.
#[derive(Debug, Clone)]
pub struct SchemaNode {
    /// How the element's text converts (from the types the schema admits).
    pub kind: Kind,
    /// The schema admits a string (or gives no type): an empty element is "".
    pub string_ok: bool,
    /// 0: a scalar; 1: an object; 2: an array (`xml_elements::{NONE, OBJECT, ARRAY}`).
    pub container: u8,
    /// An object's properties: name -> node (None: an index out of range).
    pub children: HashMap<String, Option<usize>>,
    /// An array's `items`, or an object's `additionalProperties`.
    pub other: Option<usize>,
}

/// A schema node as the binding receives it: `(types, container, children, other)`, indices
/// below 0 meaning none.
pub type RawSchemaNode = (Vec<String>, u8, HashMap<String, i64>, i64);

impl SchemaNode {
    pub fn from_raw((types, container, children, other): RawSchemaNode) -> SchemaNode {
        let kind = kind_of_types(&types);
        let string_ok = match kind {
            Kind::Str => true,
            Kind::Union(mask) => mask & T_STRING != 0,
            _ => false,
        };
        SchemaNode {
            kind,
            string_ok,
            container,
            children: children
                .into_iter()
                .map(|(k, v)| (k, usize::try_from(v).ok()))
                .collect(),
            other: usize::try_from(other).ok(),
        }
    }
}

impl Tools {
    /// From function name -> parameter name -> the JSON Schema types it admits (`type` as a
    /// string or a list, and the types of `anyOf` / `oneOf` branches; empty when the schema gives
    /// none).
    pub fn new(functions: HashMap<String, HashMap<String, Vec<String>>>) -> Tools {
        let functions = functions
            .into_iter()
            .map(|(f, params)| {
                let kinds = params
                    .into_iter()
                    .map(|(p, types)| (p, kind_of_types(&types)))
                    .collect();
                (f, kinds)
            })
            .collect();
        Tools {
            functions: Arc::new(functions),
            schemas: Arc::default(),
        }
    }

    /// As [`Tools::new`], with the functions' schema trees.
    pub fn with_schemas(
        functions: HashMap<String, HashMap<String, Vec<String>>>,
        schemas: HashMap<String, Vec<RawSchemaNode>>,
    ) -> Tools {
        let mut t = Tools::new(functions);
        t.schemas = Arc::new(
            schemas
                .into_iter()
                .map(|(f, nodes)| (f, nodes.into_iter().map(SchemaNode::from_raw).collect()))
                .collect(),
        );
        t
    }
}
