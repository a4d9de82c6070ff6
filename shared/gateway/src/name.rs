//! How a gateway names a tool, and the registry tool that name maps to (decision 93).

/// The tag that names, on a registry tool, the gateway target (AgentCore) or backend
/// (agentgateway) it is served as: the tool whose `gateway-target` tag is the target's
/// name decides its calls; without such a tool, the tool whose id is the target's name.
pub const TARGET_TAG: &str = "gateway-target";

/// What separates target and tool in an AgentCore Gateway's tool names.
pub const AGENTCORE_SEPARATOR: &str = "___";

/// Splits an AgentCore Gateway tool name, `<target>___<tool>`, at its first separator
/// (target names cannot hold one); `None` when it has none or a part is empty.
pub fn split_target(name: &str) -> Option<(&str, &str)> {
    let (target, tool) = name.split_once(AGENTCORE_SEPARATOR)?;
    (!target.is_empty() && !tool.is_empty()).then_some((target, tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agentcore_names_split_at_the_first_separator() {
        assert_eq!(split_target("refunds___issue_refund"), Some(("refunds", "issue_refund")));
        assert_eq!(split_target("a___b___c"), Some(("a", "b___c")));
        assert_eq!(split_target("issue_refund"), None);
        assert_eq!(split_target("___x"), None);
        assert_eq!(split_target("x___"), None);
    }
}
