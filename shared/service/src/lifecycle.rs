//! Lifecycle transition rules (SPEC section 6).

use registry_core::LifecycleStatus;

use crate::auth::{Principal, Role};
use crate::{Resource, ServiceError};

/// Checks that `principal` may move a definition from `from` (`None` on create) to the
/// status of `to`: retired is terminal, and retiring needs the admin role.
/// `disabled`, `active` and `deprecated` move freely between each other.
pub fn check_transition<R: Resource>(
    principal: &Principal,
    from: Option<&R>,
    to: &R,
) -> Result<(), ServiceError> {
    if let Some(head) = from
        && head.status() == LifecycleStatus::Retired
    {
        return Err(ServiceError::Retired { kind: R::KIND, id: head.id().to_owned() });
    }
    if to.status() == LifecycleStatus::Retired && !principal.has(Role::Admin) {
        return Err(ServiceError::Forbidden(format!(
            "moving a {} to `retired` requires the admin role",
            R::KIND.as_str()
        )));
    }
    Ok(())
}
