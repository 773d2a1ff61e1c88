//! `thcluster`: the command line of a cluster of `th` engines (see `luatorch::cluster::cli`).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    std::process::exit(luatorch::cluster::cli::main(args));
}
