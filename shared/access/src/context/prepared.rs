//! A request context made ready for evaluation once per decision (or per
//! resolution), then reused for every rule and, with [`PreparedContext::set_tool_id`],
//! every tool.
//!
//! Preparing checks the context limits and arranges the values ([`Value`]), borrowing
//! every string from the context it came from. The `cel` values are built as
//! conditions read them (each slot and root once, a field path's end value on each
//! read); the interpreter reaches them through a variable resolver:
//! compiled conditions refer to field paths as single identifiers (`"user.userType"`,
//! see `flatten`).

use crate::context::RequestContext;
use crate::context::limits::check;
use crate::context::value::Value;
use crate::diagnostics::{ContextError, ContextJsonError};
use cel::common::types::{CelMap, CelMapKey};
use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

/// A root variable of the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Root {
    /// `user`
    User,
    /// `customData`
    CustomData,
    /// `account`
    Account,
    /// `request` without `agentId` and `toolId`.
    Request,
}

pub(crate) type Boxed = Box<dyn Val + 'static>;

/// A request context ready for evaluation, borrowing its strings from the context it
/// was prepared from.
pub struct PreparedContext<'a> {
    /// `user`, `account`, `request` (`region`, `time`) and `customData` as maps.
    roots: [Value<'a>; 4],
    agent_id: Option<Value<'a>>,
    tool_id: Option<Value<'a>>,
    /// Where each of [`SLOTS`] sits in its root map ([`ABSENT`] when not present).
    slots: [u8; SLOTS.len()],
    /// The interpreter's values, each built when a condition first reads it.
    cel: CelValues,
    /// `request.time` when the context has none: the current time, read when a
    /// condition first needs it, then the same for every later evaluation.
    now: OnceLock<Value<'static>>,
}

/// Flattened paths resolved from a slot instead of a map walk.
pub(crate) const SLOTS: [&str; 9] = [
    "user.userId",
    "user.userType",
    "user.email",
    "user.roles",
    "account.accountId",
    "account.type",
    "account.organizationId",
    "request.region",
    "request.time",
];

/// The root of each of [`SLOTS`].
const SLOT_ROOTS: [Root; SLOTS.len()] = [
    Root::User,
    Root::User,
    Root::User,
    Root::User,
    Root::Account,
    Root::Account,
    Root::Account,
    Root::Request,
    Root::Request,
];

/// A slot whose field is absent.
const ABSENT: u8 = u8::MAX;

/// The slot of `request.time`.
const TIME_SLOT: usize = 8;

/// The `cel` values of the context that conditions read whole: each root variable and
/// each of [`SLOTS`], built on first read (a decision pays only for what it reads).
#[derive(Default)]
struct CelValues {
    roots: [OnceLock<Boxed>; 4],
    slots: [OnceLock<Option<Boxed>>; SLOTS.len()],
}

/// A copy of the context: the same values, its `cel` values built again on first read.
impl Clone for PreparedContext<'_> {
    fn clone(&self) -> Self {
        Self {
            roots: self.roots.clone(),
            agent_id: self.agent_id.clone(),
            tool_id: self.tool_id.clone(),
            slots: self.slots,
            cel: CelValues::default(),
            now: self.now.clone(),
        }
    }
}

impl std::fmt::Debug for PreparedContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedContext")
            .field("user", self.root(Root::User))
            .field("customData", self.root(Root::CustomData))
            .field("account", self.root(Root::Account))
            .field("request", self.root(Root::Request))
            .field("agentId", &self.agent_id)
            .field("toolId", &self.tool_id)
            .finish()
    }
}

/// Adds `name: value` to a record when the value is present; its slot (its place in
/// the record, or [`ABSENT`]).
fn put<'a>(
    entries: &mut Vec<(Cow<'a, str>, Value<'a>)>,
    name: &'static str,
    v: Option<Value<'a>>,
) -> u8 {
    let Some(v) = v else { return ABSENT };
    entries.push((Cow::Borrowed(name), v));
    u8::try_from(entries.len() - 1).unwrap_or(ABSENT)
}

fn borrowed(s: Option<&String>) -> Option<Value<'_>> {
    s.map(|s| Value::str(s))
}

/// Field names of `user`, in the order of [`Parts::user`].
pub(crate) const USER_FIELDS: [&str; 4] = ["userId", "userType", "email", "roles"];

/// Field names of `account`, in the order of [`Parts::account`].
pub(crate) const ACCOUNT_FIELDS: [&str; 3] = ["accountId", "type", "organizationId"];

/// The values of one context, before the limits are checked.
pub(crate) struct Parts<'a> {
    /// In the order of [`USER_FIELDS`].
    pub user: [Option<Value<'a>>; 4],
    /// In the order of [`ACCOUNT_FIELDS`].
    pub account: [Option<Value<'a>>; 3],
    pub region: Option<Value<'a>>,
    pub time: Option<chrono::DateTime<chrono::FixedOffset>>,
    pub agent_id: Option<Value<'a>>,
    pub tool_id: Option<Value<'a>>,
    /// A [`Value::Map`].
    pub custom_data: Value<'a>,
}

impl Default for Parts<'_> {
    fn default() -> Self {
        Self {
            user: Default::default(),
            account: Default::default(),
            region: None,
            time: None,
            agent_id: None,
            tool_id: None,
            custom_data: Value::Map(Vec::new()),
        }
    }
}

impl<'a> PreparedContext<'a> {
    /// Prepares `context`, checking the context limits (see `limits`). An absent
    /// `request.time` is the current time, read when a condition first needs it.
    pub fn new(context: &'a RequestContext) -> Result<Self, Vec<ContextError>> {
        let (u, a, r) = (&context.user, &context.account, &context.request);
        let roles = u
            .roles
            .as_ref()
            .map(|roles| Value::List(roles.iter().map(|s| Value::str(s)).collect()));
        let parts = Parts {
            user: [
                borrowed(u.user_id.as_ref()),
                borrowed(u.user_type.as_ref()),
                borrowed(u.email.as_ref()),
                roles,
            ],
            account: [
                borrowed(a.account_id.as_ref()),
                borrowed(a.account_type.as_ref()),
                borrowed(a.organization_id.as_ref()),
            ],
            region: borrowed(r.region.as_ref()),
            time: r.time,
            agent_id: borrowed(r.agent_id.as_ref()),
            tool_id: borrowed(r.tool_id.as_ref()),
            custom_data: Value::map_from_json(&context.custom_data),
        };
        check(&parts)?;
        Ok(Self::assemble(parts))
    }

    /// Parses the JSON text of a request context and prepares it, borrowing the
    /// strings of `json`: the same result as parsing a [`RequestContext`] and
    /// calling [`PreparedContext::new`], errors included, without building one.
    pub fn from_json(json: &'a [u8]) -> Result<Self, ContextJsonError> {
        match Self::read_json(json) {
            Some(prepared) => Ok(prepared),
            None => Self::from_json_typed(json),
        }
    }

    /// What [`PreparedContext::from_json`] gives for text the reader does not take
    /// (invalid, repeated keys, over a limit): the typed path says what is wrong and
    /// where, exactly as before (a repeated `customData` key: the last one wins).
    #[cold]
    #[inline(never)]
    fn from_json_typed(json: &[u8]) -> Result<Self, ContextJsonError> {
        let context: RequestContext =
            serde_json::from_slice(json).map_err(ContextJsonError::Json)?;
        let prepared = PreparedContext::new(&context).map_err(ContextJsonError::Limits)?;
        Ok(prepared.into_owned())
    }

    /// The one-pass reader of [`PreparedContext::from_json`] alone: `None` for any
    /// text it does not take (not a context, an object repeating a key, a key with
    /// escapes, anything over a limit), which the caller parses its own way (for
    /// example strictly, to report what is wrong). What it takes, it prepares as
    /// [`PreparedContext::new`] would.
    pub fn read_json(json: &'a [u8]) -> Option<Self> {
        // one UTF-8 check of the whole text, rather than one per string; the reader
        // takes only contexts within the limits: nothing to check again
        std::str::from_utf8(json).ok().and_then(crate::context::json::read).map(Self::assemble)
    }

    /// The prepared context of `p`, whose limits the caller has checked.
    #[inline(always)]
    fn assemble(p: Parts<'a>) -> Self {
        let [user_id, user_type, email, roles] = p.user;
        let mut user = Vec::with_capacity(4);
        let [account_id, account_type, organization_id] = p.account;
        let mut account = Vec::with_capacity(3);
        let mut request = Vec::with_capacity(2);
        // in the order of `SLOTS`
        let slots = [
            put(&mut user, "userId", user_id),
            put(&mut user, "userType", user_type),
            put(&mut user, "email", email),
            put(&mut user, "roles", roles),
            put(&mut account, "accountId", account_id),
            put(&mut account, "type", account_type),
            put(&mut account, "organizationId", organization_id),
            put(&mut request, "region", p.region),
            put(&mut request, "time", p.time.map(Value::Time)),
        ];
        let roots = [Value::Map(user), p.custom_data, Value::Map(account), Value::Map(request)];
        Self {
            roots,
            agent_id: p.agent_id,
            tool_id: p.tool_id,
            slots,
            cel: CelValues::default(),
            now: OnceLock::new(),
        }
    }

    /// The same context owning its strings (no longer borrowing what it was
    /// prepared from).
    pub fn into_owned(self) -> PreparedContext<'static> {
        let Self { roots, agent_id, tool_id, slots, cel, now } = self;
        PreparedContext {
            roots: roots.map(Value::into_owned),
            agent_id: agent_id.map(Value::into_owned),
            tool_id: tool_id.map(Value::into_owned),
            slots,
            cel,
            now,
        }
    }

    /// Sets (or, with `None`, removes) `request.toolId` for the next evaluations.
    pub fn set_tool_id(&mut self, tool_id: Option<&str>) {
        set(&mut self.tool_id, tool_id);
    }

    /// Sets (or, with `None`, removes) `request.agentId` for the next evaluations.
    pub fn set_agent_id(&mut self, agent_id: Option<&str>) {
        set(&mut self.agent_id, agent_id);
    }

    /// `request.toolId`, when set.
    pub(crate) fn tool_id(&self) -> Option<&Value<'a>> {
        self.tool_id.as_ref()
    }

    /// `request.agentId`, when set.
    pub(crate) fn agent_id(&self) -> Option<&Value<'a>> {
        self.agent_id.as_ref()
    }

    /// The value of slot `at` (see [`SLOTS`]), when the field is present.
    pub(crate) fn slot(&self, at: usize) -> Option<&Value<'a>> {
        let i = *self.slots.get(at)?;
        match &self.roots[SLOT_ROOTS[at] as usize] {
            Value::Map(entries) => match entries.get(usize::from(i)) {
                Some((_, v)) => Some(v),
                None => self.absent_slot(at),
            },
            _ => None,
        }
    }

    /// What [`PreparedContext::slot`] gives for a field the context lacks: the current
    /// time for `request.time`, else nothing. Kept out of line, which keeps `slot`
    /// small enough to inline into the evaluator.
    #[cold]
    #[inline(never)]
    fn absent_slot(&self, at: usize) -> Option<&Value<'a>> {
        (at == TIME_SLOT).then(|| self.now())
    }

    /// The current time, as `request.time` of a context without one.
    fn now(&self) -> &Value<'a> {
        self.now.get_or_init(|| Value::Time(chrono::Utc::now().fixed_offset()))
    }

    /// The `request` root as the interpreter sees it: with its `time`, the current
    /// time when the context has none.
    fn request_root(&self) -> Cow<'_, Value<'a>> {
        match self.root(Root::Request) {
            Value::Map(fields) if self.slots[TIME_SLOT] == ABSENT => {
                let mut fields = fields.clone();
                fields.push((Cow::Borrowed("time"), self.now().clone()));
                Cow::Owned(Value::Map(fields))
            }
            root => Cow::Borrowed(root),
        }
    }

    /// `user.userId`, when it is a string.
    pub fn user_id(&self) -> Option<&str> {
        self.text(0)
    }

    /// `account.accountId`, when it is a string.
    pub fn account_id(&self) -> Option<&str> {
        self.text(4)
    }

    /// `request.region`, when it is a string.
    pub fn region(&self) -> Option<&str> {
        self.text(7)
    }

    /// The string in slot `at` (see [`SLOTS`]).
    fn text(&self, at: usize) -> Option<&str> {
        match self.slot(at)? {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A whole variable (`request` without `agentId` and `toolId`).
    pub(crate) fn root(&self, root: Root) -> &Value<'a> {
        &self.roots[root as usize]
    }

    /// The whole `request` map, `agentId` and `toolId` included (built on demand).
    fn request_map(&self) -> Boxed {
        let mut entries: HashMap<CelMapKey<'static>, Boxed> = HashMap::with_capacity(4);
        if let Value::Map(fields) = self.request_root().as_ref() {
            for (key, v) in fields {
                entries.insert(CelMapKey::from(key.to_string()), v.to_cel());
            }
        }
        for (key, v) in [("agentId", &self.agent_id), ("toolId", &self.tool_id)] {
            if let Some(v) = v {
                entries.insert(CelMapKey::from(key.to_string()), v.to_cel());
            }
        }
        Box::new(CelMap::from(entries))
    }
}

fn set<'a>(slot: &mut Option<Value<'a>>, value: Option<&str>) {
    match (slot.as_mut(), value) {
        (Some(Value::Str(Cow::Owned(s))), Some(v)) => {
            s.clear();
            s.push_str(v);
        }
        (_, v) => *slot = v.map(|v| Value::Str(Cow::Owned(v.to_string()))),
    }
}

impl VariableResolver for PreparedContext<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        if let Some(i) = SLOTS.iter().position(|s| *s == variable) {
            let value = self.cel.slots[i].get_or_init(|| self.slot(i).map(Value::to_cel));
            return value.as_deref().map(CowVal::Borrowed);
        }
        let (root, rest) = match variable.split_once('.') {
            Some((root, rest)) => (root, Some(rest)),
            None => (variable, None),
        };
        let root = match root {
            "user" => Root::User,
            "customData" => Root::CustomData,
            "account" => Root::Account,
            "request" => match rest {
                None => return Some(CowVal::Owned(self.request_map())),
                Some("toolId") => return self.tool_id.as_ref().map(|v| CowVal::Owned(v.to_cel())),
                Some("agentId") => {
                    return self.agent_id.as_ref().map(|v| CowVal::Owned(v.to_cel()));
                }
                Some(_) => Root::Request,
            },
            _ => return None,
        };
        let whole = || match root {
            Root::Request => self.request_root(),
            other => Cow::Borrowed(self.root(other)),
        };
        match rest {
            None => {
                let value = self.cel.roots[root as usize].get_or_init(|| whole().to_cel());
                Some(CowVal::Borrowed(value.as_ref()))
            }
            // a field path: only the value at its end becomes a `cel` value
            Some(fields) => {
                let whole = whole();
                let mut value = whole.as_ref();
                for field in fields.split('.') {
                    value = value.get(field)?;
                }
                Some(CowVal::Owned(value.to_cel()))
            }
        }
    }
}
