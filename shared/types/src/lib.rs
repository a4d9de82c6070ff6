#![doc = include_str!("../README.md")]

mod anthropic;
mod arguments;
mod bedrock;
mod bedrock_value;
mod compare;
mod compile;
mod excerpt;
mod function;
mod json_schema;
mod mcp;
mod model;
mod notation;
mod openai;
mod pointer;
mod seed_form;
mod type_def;
mod type_expr;
mod unquoted_list;
mod validate;

pub use arguments::{ArgumentSchema, decode_bedrock_arguments, validate_arguments};
pub use bedrock::{
    BedrockEncoding, BedrockFunction, BedrockParameter, BedrockType, MAX_PARAMETER_DESCRIPTION,
    bedrock_functions, bedrock_parameter_encodings,
};
pub use bedrock_value::{BedrockValueError, bedrock_value_is_text, decode_bedrock_value};
pub use compare::{ChangeKind, Interface, SchemaChange, compare, severity};
pub use compile::{CompatIssue, Compiled, Format, UnknownFormat, compile};
pub use excerpt::{MAX_EXCERPT_CHARS, excerpt, quote};
pub use function::{Confirmation, FunctionDefinition, ParameterDefinition};
pub use json_schema::DRAFT_2020_12;
pub use pointer::{PointerPath, pointer};
pub use type_def::{Form, TypeDefinition, TypeKind};
pub use validate::{
    MAX_DEPTH, MAX_FUNCTION_DESCRIPTION, MAX_FUNCTIONS, MAX_PARAMETERS, SchemaError,
    validate_tool_schema,
};
