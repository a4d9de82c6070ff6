//! The [`Authenticator`] for API Gateway: caller identity from the request context,
//! role from the [`RoleMap`].

use registry_api::{AuthError, Authenticator, Principal, Role};

use crate::identity::Identity;
use crate::role_map::RoleMap;

/// What the request context says about the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// API Gateway passed no identity (the route has no authorizer).
    Anonymous,
    /// An identity that the role map grants no role (its name).
    Unmapped(String),
    /// An identity with a role.
    Known(Principal),
}

/// Authenticates API Gateway callers by the identity in the request context.
#[derive(Debug, Clone)]
pub struct GatewayAuth {
    roles: RoleMap,
}

impl GatewayAuth {
    /// An authenticator granting roles by `roles`.
    pub fn new(roles: RoleMap) -> Self {
        Self { roles }
    }

    /// Classifies the caller of a request from its extensions.
    pub fn caller(&self, extensions: &http::Extensions) -> Caller {
        let Some(identity) = Identity::from_extensions(extensions) else {
            return Caller::Anonymous;
        };
        match self.role_of(&identity) {
            Some(role) => Caller::Known(Principal::new(identity.name, role)),
            None => Caller::Unmapped(identity.name),
        }
    }

    /// The role the role map grants `identity`, if any.
    pub fn role_of(&self, identity: &Identity) -> Option<Role> {
        self.roles.role_for(identity.arn.as_deref(), &identity.groups)
    }
}

impl Authenticator for GatewayAuth {
    /// No identity is a 401 saying how to call the API; an identity that the role map
    /// grants no role is a 403 naming the caller.
    fn authenticate(&self, parts: &http::request::Parts) -> Result<Principal, AuthError> {
        match self.caller(&parts.extensions) {
            Caller::Known(principal) => Ok(principal),
            Caller::Unmapped(principal) => Err(AuthError::NoRole { principal }),
            Caller::Anonymous => Err(AuthError::Unidentified(
                "the request carries no caller identity: call the API with AWS SigV4 (IAM \
                 authorization) or a JWT accepted by the API's authorizer"
                    .to_owned(),
            )),
        }
    }
}
