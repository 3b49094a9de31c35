fn main() -> std::process::ExitCode {
    driftlint::cli::main()
}
