#![doc = include_str!("../README.md")]

#[cfg(feature = "contract")]
pub mod contract;
mod counter;
mod diff;
mod error;
mod event;
mod private_files;
mod proposal;
mod query;
mod store;

pub use counter::{Counter, rate_key, session_key};
pub use diff::{PatchOp, changed_pointers, changed_pointers_json, content_json, diff};
pub use error::{StoreError, stored_version};
pub use event::{
    Action, Change, Event, EventDraft, EventPage, EventQuery, MAX_EVENT_PAGE, MAX_EVENT_SEQ,
    ProposalUpdate, decode_event_cursor, encode_event_cursor, event_page_size, parse_event_seq,
};
pub use private_files::{create_private_dir, write_private_file};
pub use proposal::{Approval, Closing, Proposal, ProposalQuery, ProposalState};
pub use query::{Expected, ListFilter, ListQuery, Page, TagFilter};
pub use store::{Referenced, SYSTEM_ACTOR, Store};
