//! The contract every [`Store`](crate::Store) backend must satisfy, as plain async
//! checks (each panics on a violation) plus [`contract_tests!`](crate::contract_tests)
//! which turns them into one `#[tokio::test]` each.
//!
//! Each check takes a fresh, empty store. A backend crate runs the whole suite with
//! `registry_store::contract_tests!(my_fixture());` where `my_fixture()` is a future
//! yielding a [`Fixture`].
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod audit;
mod concurrency;
mod counters;
mod crud;
mod delete;
mod fixture;
mod list;
mod references;
pub mod sample;

pub use audit::{
    concurrent_writes_number_events_without_gaps, events_page_in_order_with_filters,
    every_write_appends_one_event, proposals_are_conditional_and_evented,
};
pub use concurrency::concurrent_puts_have_one_winner;
pub use counters::{
    counters_are_written_all_or_none, counters_are_written_on_the_version_read,
    expired_counters_read_as_absent,
};
pub use crud::{
    create_twice_is_already_exists, kinds_are_separate, round_trip_keeps_keys_and_secrets,
    snapshots_never_change, stale_version_is_mismatch, versions_page_oldest_first,
    versions_start_at_one_and_increment,
};
pub use delete::{delete_leaves_tombstone, retired_tool_can_be_deleted, tool_in_use_is_refused};
pub use fixture::Fixture;
pub use list::{
    garbled_cursor_is_invalid, get_many_keeps_order, list_filters, list_pages_without_gaps,
    releases_by_name,
};
pub use references::{
    bad_references_are_refused, heads_come_with_their_references, referrers_are_live_agents,
    tool_overrides_are_references,
};

/// Expands to one `#[tokio::test(flavor = "multi_thread")]` per contract check. The
/// argument is an expression evaluated afresh for every test that yields a future of
/// [`Fixture`] (an empty store plus whatever must live as long as it). The calling
/// crate needs `tokio` (features `macros`, `rt-multi-thread`) as a dev-dependency.
///
/// ```ignore
/// async fn fixture() -> registry_store::contract::Fixture { /* fresh empty store */ }
/// registry_store::contract_tests!(fixture());
/// ```
#[macro_export]
macro_rules! contract_tests {
    ($factory:expr) => {
        $crate::__contract_tests!(
            $factory;
            round_trip_keeps_keys_and_secrets,
            versions_start_at_one_and_increment,
            create_twice_is_already_exists,
            stale_version_is_mismatch,
            snapshots_never_change,
            versions_page_oldest_first,
            kinds_are_separate,
            delete_leaves_tombstone,
            tool_in_use_is_refused,
            retired_tool_can_be_deleted,
            bad_references_are_refused,
            tool_overrides_are_references,
            referrers_are_live_agents,
            heads_come_with_their_references,
            list_filters,
            list_pages_without_gaps,
            garbled_cursor_is_invalid,
            get_many_keeps_order,
            releases_by_name,
            concurrent_puts_have_one_winner,
            counters_are_written_on_the_version_read,
            expired_counters_read_as_absent,
            counters_are_written_all_or_none,
            every_write_appends_one_event,
            events_page_in_order_with_filters,
            concurrent_writes_number_events_without_gaps,
            proposals_are_conditional_and_evented,
        );
    };
}

/// Implementation detail of [`contract_tests!`].
#[doc(hidden)]
#[macro_export]
macro_rules! __contract_tests {
    ($factory:expr; $($check:ident),* $(,)?) => {
        $(
            #[::tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn $check() {
                let fixture: $crate::contract::Fixture = $factory.await;
                $crate::contract::$check(fixture.store()).await;
                drop(fixture);
            }
        )*
    };
}
