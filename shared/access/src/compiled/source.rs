//! Where the compiled form reads variables: the names a condition's flattened
//! identifiers resolve to, read as the interpreter's variable resolvers read them
//! (`PreparedContext`, and `WithCall` for a call's arguments and the session), but as
//! the context's own values, borrowed in place.

use crate::call::prepared::WithCall;
use crate::compiled::ops::View;
use crate::context::prepared::{PreparedContext, Root, SLOTS};
use crate::context::value::Value;

/// A variable or field path of the context, as a flattened identifier names it.
#[derive(Debug, Clone)]
pub(crate) enum Path {
    /// One of [`SLOTS`].
    Slot(usize),
    /// `user`, `customData` or `account`, whole.
    Root(Root),
    /// A field path on `user`, `customData` or `account` (not a slot).
    Field(Root, Box<[Box<str>]>),
    /// `request.toolId`.
    ToolId,
    /// `request.agentId`.
    AgentId,
    /// `call` and what follows it (`""`, `".function"`, `".arguments.amount"`).
    Call(Box<str>),
    /// `session.calls`.
    SessionCalls,
}

impl Path {
    /// The path the identifier `name` names, when the compiled form reads it; `None`
    /// for the rest (`request` whole and its other fields, the session's maps), which
    /// the interpreter keeps.
    pub(crate) fn of(name: &str) -> Option<Path> {
        if let Some(i) = SLOTS.iter().position(|s| *s == name) {
            return Some(Path::Slot(i));
        }
        if name == "session.calls" {
            return Some(Path::SessionCalls);
        }
        if let Some(rest) = name.strip_prefix("call")
            && (rest.is_empty() || rest.starts_with('.'))
        {
            return Some(Path::Call(rest.into()));
        }
        let (root, rest) = match name.split_once('.') {
            Some((root, rest)) => (root, Some(rest)),
            None => (name, None),
        };
        let root = match (root, rest) {
            ("user", _) => Root::User,
            ("customData", _) => Root::CustomData,
            ("account", _) => Root::Account,
            ("request", Some("toolId")) => return Some(Path::ToolId),
            ("request", Some("agentId")) => return Some(Path::AgentId),
            _ => return None,
        };
        Some(match rest {
            None => Path::Root(root),
            Some(fields) => Path::Field(root, fields.split('.').map(Box::from).collect()),
        })
    }
}

/// A value the compiled form works on: borrowed from the context or the program, or
/// made (kept small: it is returned up every node).
pub(crate) enum Val<'v> {
    Ref(&'v Value<'v>),
    Bool(bool),
    Int(i64),
    Own(Box<Value<'v>>),
}

impl Val<'_> {
    /// The value as the operators read it.
    #[inline(always)]
    pub(crate) fn view(&self) -> View<'_> {
        match self {
            Val::Ref(v) => View::of(v),
            Val::Own(v) => View::of(v),
            Val::Bool(b) => View::Bool(*b),
            Val::Int(i) => View::Int(*i),
        }
    }
}

/// What the compiled form reads variables from.
pub(crate) trait Source {
    /// The value at `path`; `None` where the interpreter's resolver finds nothing (a
    /// missing field: an error).
    fn get(&self, path: &Path) -> Option<Val<'_>>;
}

impl Source for PreparedContext<'_> {
    fn get(&self, path: &Path) -> Option<Val<'_>> {
        let value: &Value<'_> = match path {
            Path::Slot(i) => self.slot(*i)?,
            Path::Root(root) => self.root(*root),
            Path::Field(root, fields) => {
                fields.iter().try_fold(self.root(*root), |value, field| value.get(field))?
            }
            Path::ToolId => self.tool_id()?,
            Path::AgentId => self.agent_id()?,
            Path::Call(_) | Path::SessionCalls => return None,
        };
        Some(Val::Ref(value))
    }
}

impl Source for WithCall<'_> {
    fn get(&self, path: &Path) -> Option<Val<'_>> {
        match path {
            Path::Call(rest) => self.call.at(rest).map(|v| Val::Own(Box::new(v))),
            Path::SessionCalls => Some(Val::Int(self.session.calls_int())),
            other => self.ctx.get(other),
        }
    }
}
