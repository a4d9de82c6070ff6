//! The caller's request context as a form, shared by "Resolve as a user" and
//! "Authorize a call": the fields, member by member, and the context they make.

use maud::{Markup, html};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::parts::{Control, field, text_field};

/// The form's fields: the request context, member by member.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContextForm {
    /// `user.userId`.
    pub user_id: String,
    /// `user.userType`.
    pub user_type: String,
    /// `user.email`.
    pub email: String,
    /// `user.roles`, comma-separated.
    pub roles: String,
    /// `account.accountId`.
    pub account_id: String,
    /// `account.accountType`.
    pub account_type: String,
    /// `request.region`.
    pub region: String,
    /// `customData`, a JSON object.
    pub custom_data: String,
    /// Present once the resolve form was sent.
    pub run: Option<String>,
}

/// Why the custom-data field does not make a context.
#[derive(Debug, thiserror::Error)]
pub enum CustomDataError {
    /// JSON, but not an object.
    #[error("must be a JSON object, such as {{\"tier\": \"premium\"}}")]
    NotAnObject,
    /// Not JSON at all.
    #[error("is not JSON: {0}")]
    NotJson(#[from] serde_json::Error),
}

impl ContextForm {
    /// The request context the fields make (empty ones left out).
    pub fn context(&self) -> Result<Value, CustomDataError> {
        let mut ctx = Map::new();
        let mut put = |outer: &str, inner: &str, v: Value| {
            let entry = ctx.entry(outer.to_owned()).or_insert_with(|| json!({}));
            if let Some(o) = entry.as_object_mut() {
                o.insert(inner.to_owned(), v);
            }
        };
        for (outer, inner, text) in [
            ("user", "userId", &self.user_id),
            ("user", "userType", &self.user_type),
            ("user", "email", &self.email),
            ("account", "accountId", &self.account_id),
            ("account", "accountType", &self.account_type),
            ("request", "region", &self.region),
        ] {
            if !text.trim().is_empty() {
                put(outer, inner, Value::String(text.trim().to_owned()));
            }
        }
        let roles: Vec<Value> = self
            .roles
            .split(',')
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| Value::String(r.to_owned()))
            .collect();
        if !roles.is_empty() {
            put("user", "roles", Value::Array(roles));
        }
        if !self.custom_data.trim().is_empty() {
            match serde_json::from_str::<Value>(&self.custom_data)? {
                Value::Object(o) => {
                    ctx.insert("customData".to_owned(), Value::Object(o));
                }
                _ => return Err(CustomDataError::NotAnObject),
            }
        }
        Ok(Value::Object(ctx))
    }

    /// The fields in two columns, `extra` before the custom data, which carries
    /// `error` (what is wrong with the context) when there is one.
    pub fn fields(&self, extra: Markup, error: Option<&str>) -> Markup {
        html! {
            div.cols {
                div {
                    (text_field("userId", "User id (user.userId)", &self.user_id))
                    div.field {
                        label for="userType" { "User type (user.userType)" }
                        input type="text" id="userType" name="userType" list="user-types"
                            value=(self.user_type);
                        datalist #user-types {
                            @for t in ["internal-user", "external-user", "blocked-user"] {
                                option value=(t);
                            }
                        }
                    }
                    (text_field("email", "Email (user.email)", &self.email))
                    (text_field("roles", "Roles (user.roles, comma-separated)", &self.roles))
                    (text_field("accountId", "Account id (account.accountId)", &self.account_id))
                    (text_field(
                        "accountType",
                        "Account type (account.accountType)",
                        &self.account_type,
                    ))
                    (text_field("region", "Region (request.region)", &self.region))
                }
                div {
                    (extra)
                    (field(
                        ("customData", "customData"),
                        html! { "Custom data (customData, a JSON object)" },
                        Control::TextArea,
                        &self.custom_data,
                        error.map(|e| ("error-customData", html! { (e) })),
                    ))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_make_a_context_and_custom_data_must_be_an_object() {
        let form = ContextForm {
            user_id: " u-1 ".into(),
            roles: "a, ,b".into(),
            region: "eu-west-1".into(),
            custom_data: "{\"tier\": \"premium\"}".into(),
            ..ContextForm::default()
        };
        let ctx = form.context().unwrap_or_default();
        assert_eq!(
            ctx,
            json!({
                "user": {"userId": "u-1", "roles": ["a", "b"]},
                "request": {"region": "eu-west-1"},
                "customData": {"tier": "premium"}
            })
        );
        let list = ContextForm { custom_data: "[1]".into(), ..ContextForm::default() };
        assert!(matches!(list.context(), Err(CustomDataError::NotAnObject)));
        let broken = ContextForm { custom_data: "{".into(), ..ContextForm::default() };
        assert!(broken.context().is_err_and(|e| e.to_string().starts_with("is not JSON")));
    }
}
