//! Compiles `proto/ext_mcp.proto` with `protox` (no `protoc` needed) and generates the
//! tonic server and client with `tonic-prost-build`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("cargo:rerun-if-changed=proto/ext_mcp.proto");
    let descriptors = protox::compile(["ext_mcp.proto"], ["proto"])?;
    tonic_prost_build::configure().compile_fds(descriptors)?;
    Ok(())
}
