//! Runs the ompadapt pass over a textual or bitcode IR file and prints the result:
//! `cargo run -p ompadapt-pass --example ompadapt-ir -- in.ll [-o out.ll]`.
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, output) = match args.as_slice() {
        [input] => (input.clone(), None),
        [input, flag, out] if flag == "-o" => (input.clone(), Some(out.clone())),
        _ => {
            eprintln!("usage: ompadapt-ir <in.ll|in.bc> [-o <out.ll>]");
            std::process::exit(2);
        }
    };
    let context = Context::create();
    let buffer = MemoryBuffer::create_from_file(input.as_ref()).unwrap_or_else(|e| {
        eprintln!("ompadapt-ir: cannot read {input}: {e}");
        std::process::exit(1)
    });
    let module = context.create_module_from_ir(buffer).unwrap_or_else(|e| {
        eprintln!("ompadapt-ir: cannot parse {input}: {e}");
        std::process::exit(1)
    });
    ompadapt_pass::run_on_module(&module, None);
    if let Err(e) = module.verify() {
        eprintln!("ompadapt-ir: the result does not verify: {e}");
        std::process::exit(1);
    }
    match output {
        Some(out) => module.print_to_file(&out).unwrap_or_else(|e| {
            eprintln!("ompadapt-ir: cannot write {out}: {e}");
            std::process::exit(1)
        }),
        None => print!("{}", module.print_to_string().to_string()),
    }
}
