//! The `docsieve` command: `serve` (default), `migrate`, `print-config`, `keys`, `mask`, `extract`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use docsieve::config::Settings;
use docsieve::startup::{store_settings, Application};
use docsieve::telemetry;

/// jemalloc instead of glibc's malloc: under 32 concurrent 50 KB previews glibc's allocator (its arenas,
/// `malloc_consolidate` on every large request) took a tenth of the server's CPU; with jemalloc a preview
/// costs 9 % less CPU, p50 and p99 fall by 4 ms and RSS by 15 MB (see docs/performance.md).
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// Gives the pages jemalloc keeps of freed allocations back to the system, in every arena
/// (`docsieve_actors::runtime::release_memory_after`: called after large work only).
#[allow(unsafe_code)]
fn purge_freed_memory() {
    // SAFETY: `arena.<MALLCTL_ARENAS_ALL>.purge` reads and writes nothing: every pointer is null and
    // the length 0, as jemalloc's manual gives it; the name is a NUL-terminated constant.
    let status = unsafe {
        tikv_jemalloc_sys::mallctl(
            c"arena.4096.purge".as_ptr(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            std::ptr::null_mut(),
            0,
        )
    };
    if status != 0 {
        tracing::debug!(status, "jemalloc did not purge its arenas");
    }
}

#[derive(Parser)]
#[command(
    name = "docsieve",
    version,
    about = "Privacy-aware document processing and dataset export service"
)]
struct Cli {
    /// A TOML file layered over the built-in defaults (config/default.toml).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the HTTP API and every actor (the default).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Print the effective configuration, secrets redacted.
    PrintConfig,
    /// The master key: rotate it, or check that every stored blob opens.
    #[command(subcommand)]
    Keys(docsieve::cli_keys::KeysCommand),
    /// Check a signed erasure or closure receipt (offline).
    #[command(subcommand)]
    Receipts(docsieve::cli_keys::ReceiptsCommand),
    /// Find and mask personal data in files (offline).
    Mask(docsieve::cli_mask::MaskArgs),
    /// Extract the document model from a file (offline).
    Extract(docsieve::cli_extract::ExtractArgs),
    /// An extraction worker: reads documents from stdin, answers on stdout (started by `serve`).
    #[command(hide = true)]
    ExtractWorker(WorkerArgs),
}

#[derive(clap::Args)]
struct WorkerArgs {
    /// Address space limit in MiB (0: none).
    #[arg(long, default_value_t = 0)]
    memory_mb: u64,
    /// Log format of the server that started the worker ("text" or "json").
    #[arg(long, default_value = "text")]
    log_format: String,
}

/// `docsieve extract-worker`: the worker's own logging (to stderr, warnings and worse), then the loop.
fn extract_worker(args: WorkerArgs) -> ExitCode {
    telemetry::init_logging(&docsieve::config::LogSettings {
        format: args.log_format,
        level: "warn".to_string(),
    });
    let options = docsieve_actors::extractor_pool::WorkerOptions {
        memory_mb: args.memory_mb,
    };
    match docsieve_actors::extractor_pool::serve_worker(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(%error, "the extraction worker stops");
            ExitCode::FAILURE
        }
    }
}

fn main() -> ExitCode {
    // Tesseract's OpenMP threads fight each other on small machines: one per page, and the extractor
    // pool runs pages side by side (5-7x faster on two cores, identical output).
    if std::env::var_os("OMP_THREAD_LIMIT").is_none() {
        std::env::set_var("OMP_THREAD_LIMIT", "1");
    }
    docsieve_actors::runtime::set_memory_release(purge_freed_memory);
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Mask(args)) => return docsieve::cli_mask::run(args),
        Some(Command::Receipts(command)) => return docsieve::cli_keys::receipts(command),
        Some(Command::Extract(args)) => return docsieve::cli_extract::run(args),
        Some(Command::ExtractWorker(args)) => return extract_worker(args),
        _ => {}
    }
    let settings = match Settings::load(cli.config.as_deref()) {
        Ok(settings) => settings,
        Err(error) => {
            eprintln!("docsieve: invalid configuration: {error}");
            return ExitCode::from(2);
        }
    };
    let command = cli.command.unwrap_or(Command::Serve);
    if matches!(command, Command::PrintConfig) {
        for deprecation in &settings.deprecations {
            eprintln!("docsieve: warning: {deprecation}");
        }
    }
    match command {
        Command::Mask(_)
        | Command::Extract(_)
        | Command::ExtractWorker(_)
        | Command::Receipts(_) => ExitCode::SUCCESS,
        Command::Keys(keys) => {
            telemetry::init_logging(&settings.log);
            docsieve::cli_keys::run(&settings, keys)
        }
        Command::PrintConfig => match toml::to_string_pretty(&settings.redacted()) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(error) => {
                eprintln!("docsieve: cannot print the configuration: {error}");
                ExitCode::FAILURE
            }
        },
        Command::Migrate => {
            telemetry::init_logging(&settings.log);
            let result = actix_web::rt::System::new().block_on(async {
                docsieve_actors::store::Store::migrate(&store_settings(&settings)).await
            });
            match result {
                Ok(()) => {
                    println!("migrations applied");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("docsieve: migration failed: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Command::Serve => {
            telemetry::init_logging(&settings.log);
            for deprecation in &settings.deprecations {
                tracing::warn!("{deprecation}");
                eprintln!("docsieve: warning: {deprecation}");
            }
            match actix_web::rt::System::new().block_on(serve(settings)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    tracing::error!(
                        error = format!("{error:#}"),
                        "docsieve stopped with an error"
                    );
                    eprintln!("docsieve: {error:#}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

async fn serve(settings: Settings) -> anyhow::Result<()> {
    let metrics = telemetry::install_metrics()?;
    let application = Application::build(settings, metrics).await?;
    // Scripts and the test suite read this line to learn the port (server.bind may say port 0).
    println!("docsieve listening on http://{}", application.address());
    tracing::info!(address = %application.address(), "listening");
    application.run_until_stopped().await
}
