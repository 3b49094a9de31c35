// mimalloc instead of glibc's malloc: the engine allocates and frees many small values per
// CR on every pool thread, where glibc's arenas cost about a quarter of the CPU (and lock
// each other on frees across threads). Built without transparent huge pages (`no_thp`):
// with them the resident set grows in 2 MiB steps. Measured in docs/development.md, "Many small files".
// `--no-default-features` builds with the system allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The command runs on a thread with a large stack (reserved, committed as used): see
/// `driftlint::cli::STACK_SIZE`.
fn main() -> std::process::ExitCode {
    std::thread::Builder::new()
        .name("driftlint".into())
        .stack_size(driftlint::cli::STACK_SIZE)
        .spawn(driftlint::cli::main)
        .map_or_else(|_| driftlint::cli::main(), |t| t.join().unwrap_or(std::process::ExitCode::from(101)))
}
