//! What the routes need to know about a kind of definition beyond the service's
//! [`Resource`]: the query a create or replace reads, and what it checks before
//! anything is written (tools: `?verify=true` checks the Lambda with AWS).

use registry_core::{AgentDefinition, ToolDefinition};

use crate::http::AppState;
use crate::http::params::{NoQuery, VerifyOnWrite};
use crate::http::problem::Problem;
use crate::service::Resource;

/// A kind of definition served under its own collection (`/agents`, `/tools`) by the
/// handlers of [`crate::http::resource`].
pub trait Routed: Resource + utoipa::ToSchema {
    /// The query of a create or replace, read before the body.
    type WriteQuery: axum::extract::FromRequestParts<AppState, Rejection = Problem> + Send;

    /// Refuses `definition` before it is written, as `query` asks.
    fn before_write(
        state: &AppState,
        query: Self::WriteQuery,
        definition: &Self,
    ) -> impl Future<Output = Result<(), Problem>> + Send;
}

impl Routed for AgentDefinition {
    type WriteQuery = NoQuery;

    async fn before_write(_: &AppState, _: NoQuery, _: &Self) -> Result<(), Problem> {
        Ok(())
    }
}

impl Routed for ToolDefinition {
    type WriteQuery = VerifyOnWrite;

    /// With `?verify=true`, refuses a tool whose Lambda fails verification.
    async fn before_write(
        state: &AppState,
        VerifyOnWrite(verify): VerifyOnWrite,
        definition: &Self,
    ) -> Result<(), Problem> {
        if !verify {
            return Ok(());
        }
        #[cfg(feature = "aws")]
        {
            Ok(state.registry.publishing.verify_before_write(definition).await?)
        }
        #[cfg(not(feature = "aws"))]
        {
            let _ = (state, definition);
            Err(Problem::bad_request(
                "",
                "this server is built without AWS support: `verify=true` is not available",
            ))
        }
    }
}
