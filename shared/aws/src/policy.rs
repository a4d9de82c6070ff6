//! Reading a Lambda resource policy: may Bedrock invoke the function, and is the grant
//! scoped (a source ARN or account condition, against the confused-deputy problem)?

use serde_json::Value;

/// The service principal Bedrock Agents invokes action-group Lambdas as.
pub const BEDROCK_PRINCIPAL: &str = "bedrock.amazonaws.com";

/// What the policy says about Bedrock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BedrockGrant {
    /// No statement lets Bedrock invoke the function.
    Missing,
    /// Bedrock may invoke it, from any account or agent.
    Unscoped,
    /// Bedrock may invoke it, with a source ARN or source account condition.
    Scoped,
}

/// The best grant to Bedrock in a policy document (`GetPolicy`'s `Policy` text parsed).
pub fn bedrock_grant(policy: &Value) -> BedrockGrant {
    let statements = match &policy["Statement"] {
        Value::Array(list) => list.iter().collect(),
        single @ Value::Object(_) => vec![single],
        _ => Vec::new(),
    };
    let mut best = BedrockGrant::Missing;
    for s in statements {
        if s["Effect"] != "Allow" || !names_bedrock(&s["Principal"]) || !allows_invoke(&s["Action"])
        {
            continue;
        }
        if is_scoped(&s["Condition"]) {
            return BedrockGrant::Scoped;
        }
        best = BedrockGrant::Unscoped;
    }
    best
}

fn any_str(v: &Value, pred: impl Fn(&str) -> bool) -> bool {
    match v {
        Value::String(s) => pred(s),
        Value::Array(list) => list.iter().filter_map(Value::as_str).any(pred),
        _ => false,
    }
}

fn names_bedrock(principal: &Value) -> bool {
    any_str(&principal["Service"], |s| s == BEDROCK_PRINCIPAL) || principal == "*"
}

fn allows_invoke(action: &Value) -> bool {
    any_str(action, |a| matches!(a, "lambda:InvokeFunction" | "lambda:*" | "*"))
}

/// A condition naming `AWS:SourceArn` or `AWS:SourceAccount` (keys are case-insensitive).
fn is_scoped(condition: &Value) -> bool {
    let Some(operators) = condition.as_object() else { return false };
    operators.values().filter_map(Value::as_object).any(|keys| {
        keys.keys().any(|k| {
            let k = k.to_ascii_lowercase();
            k == "aws:sourcearn" || k == "aws:sourceaccount"
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn policy(statement: Value) -> Value {
        json!({"Version": "2012-10-17", "Statement": [statement]})
    }

    #[test]
    fn grants_are_read_as_aws_writes_them() {
        let scoped = json!({"Effect": "Allow", "Principal": {"Service": "bedrock.amazonaws.com"},
            "Action": "lambda:InvokeFunction", "Resource": "arn",
            "Condition": {"ArnLike": {"AWS:SourceArn": "arn:aws:bedrock:us-east-1:123456789012:agent/*"}}});
        assert_eq!(bedrock_grant(&policy(scoped.clone())), BedrockGrant::Scoped);
        let mut open = scoped.clone();
        open.as_object_mut().map(|o| o.remove("Condition"));
        assert_eq!(bedrock_grant(&policy(open)), BedrockGrant::Unscoped);
        let mut other = scoped.clone();
        other["Principal"] = json!({"Service": "s3.amazonaws.com"});
        assert_eq!(bedrock_grant(&policy(other)), BedrockGrant::Missing);
        let mut deny = scoped.clone();
        deny["Effect"] = json!("Deny");
        assert_eq!(bedrock_grant(&policy(deny)), BedrockGrant::Missing);
        let mut account = scoped;
        account["Condition"] = json!({"StringEquals": {"aws:sourceaccount": "123456789012"}});
        account["Action"] = json!(["lambda:GetFunction", "lambda:InvokeFunction"]);
        assert_eq!(bedrock_grant(&policy(account)), BedrockGrant::Scoped);
        assert_eq!(bedrock_grant(&json!({"Statement": "nonsense"})), BedrockGrant::Missing);
    }
}
