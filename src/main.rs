// mimalloc instead of glibc's malloc: the engine allocates and frees many small values per
// CR on every pool thread, where glibc's arenas cost about a quarter of the CPU (and lock
// each other on frees across threads). Built without transparent huge pages (`no_thp`):
// with them the resident set grows in 2 MiB steps. Measured in docs/development.md, "Many small files".
// `--no-default-features` builds with the system allocator.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    driftlint::cli::main()
}
