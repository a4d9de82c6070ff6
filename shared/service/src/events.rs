//! Reading the audit event stream.

use registry_store::{EventPage, EventQuery};

use crate::{Catalog, ServiceError};

impl Catalog {
    /// One page of events after `query.after`, oldest first (any role).
    pub async fn events(&self, query: &EventQuery) -> Result<EventPage, ServiceError> {
        self.store()
            .events(query)
            .await
            .map_err(|e| ServiceError::from_store(registry_core::Kind::Tool, "", e))
    }
}
