//! The command line, as clap types. `docs/cli.md` documents every option.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Compiler front end, linter and driver for Triton GPU kernels.
#[derive(Debug, Parser)]
#[command(name = "tritonc", version, propagate_version = true)]
pub struct Cli {
    /// The command to run.
    #[command(subcommand)]
    pub command: Command,
    /// When to colour terminal output (`auto`: on a terminal, unless NO_COLOR is set).
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// How to print diagnostics.
    #[arg(long, global = true, value_enum, default_value_t = FormatArg::Terminal)]
    pub format: FormatArg,
    /// Print diagnostics only: no summary or progress lines.
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compile kernels ahead of time.
    Compile(CompileArgs),
    /// Check every `@triton.jit` kernel under the given paths.
    Lint(LintArgs),
    /// Run a kernel from a launch spec on the GPU or the CPU interpreter.
    Run(RunArgs),
    /// Verify a kernel from a launch spec against the interpreter.
    Verify(VerifyArgs),
    /// Autotune a kernel's `@triton.autotune` configs on the GPU and keep the winners.
    Tune(TuneArgs),
    /// Explain a diagnostic code or rule name, or list every code.
    Rule(RuleArgs),
    /// Serve lint diagnostics and fixes to editors (the language server protocol, stdio).
    Server(ServerArgs),
    /// Show or clear the compile cache.
    Cache(CacheArgs),
}

/// `tritonc server`.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// Speak over stdin/stdout (the only transport; accepted because clients pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// `tritonc compile`.
#[derive(Debug, Args)]
pub struct CompileArgs {
    /// The Python files that define the kernels (or `--spec SPEC…`); several compile in
    /// parallel.
    #[arg(value_name = "FILE", required_unless_present_any = ["spec", "show_settings"])]
    pub files: Vec<PathBuf>,
    /// Compile every variant `tritonc verify SPEC` launches (the specializations come
    /// from the launch spec's actual arguments); takes several specs.
    #[arg(long, value_name = "SPEC", num_args = 1.., conflicts_with_all = ["files", "signature", "kernel", "emit", "num_warps", "num_stages"])]
    pub spec: Vec<PathBuf>,
    /// The kernel to compile (required when the file defines several).
    #[arg(long, value_name = "NAME")]
    pub kernel: Option<String>,
    /// The launch signature: argument types and constexpr values, comma-separated
    /// (e.g. "*fp16:16, *fp16:16, i32, 1024").
    #[arg(long, value_name = "SIG")]
    pub signature: Option<String>,
    /// Warps per program (a power of two, 1 to 32) [default: the kernel's `num_warps` in
    /// the project configuration, else 4]
    #[arg(long, value_name = "N")]
    pub num_warps: Option<u32>,
    /// Software-pipelining stages for loops.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub num_stages: u32,
    /// The target architecture: sm_80, sm_86, sm_89, sm_90, sm_90a, gfx90a, gfx942.
    #[arg(long, value_name = "ARCH", default_value = "sm_90")]
    pub target: String,
    /// Stages to emit, comma-separated: ttir, ttgir, mlir, llir, then ptx, cubin, c for
    /// NVIDIA targets or amdgcn for AMD ones (default: write a bundle per variant; `c`
    /// writes FILE_STEM.h and FILE_STEM.c, docs/c.md).
    #[arg(long, value_name = "STAGES", value_delimiter = ',')]
    pub emit: Option<Vec<String>>,
    /// Directory to write the emitted files and bundles to (text stages print to stdout
    /// without it; bundles go to `tritonc-out/`).
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// With `--emit c`: the tuning tables of `tritonc tune` in DIR (`KERNEL.tune-*.json`)
    /// give each autotuned kernel `KERNEL_tuned_config` and `KERNEL_launch_config`
    /// (docs/c.md, "Tuned kernels").
    #[arg(long, value_name = "DIR", requires = "emit")]
    pub tuned: Option<PathBuf>,
    /// Keep `a*b + c` as separate roundings (no `fma` contraction).
    #[arg(long)]
    pub no_fp_fusion: bool,
    /// Triton's debug mode: compile `tl.device_assert` and `assert` into the kernel (also
    /// on with `TRITON_DEBUG=1` or `@triton.jit(debug=True)`).
    #[arg(long)]
    pub debug: bool,
    /// The Triton language version whose rules apply: 3.6, 3.7, 3.8 or 3.9 (default: the
    /// project configuration's `triton-version`, else the `triton` package of
    /// `$VIRTUAL_ENV` or `./.venv`, else the Triton its torch pins, else 3.6).
    #[arg(long, value_name = "VERSION")]
    pub triton_version: Option<tritonc_sema::TritonVersion>,
    /// Print the settings the compile would use (options, configuration, Triton version
    /// and where each comes from) and exit without compiling.
    #[arg(long)]
    pub show_settings: bool,
    /// Compile on N threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// Neither read nor write the compile cache.
    #[arg(long)]
    pub no_cache: bool,
}

/// `tritonc cache`.
#[derive(Debug, Args)]
pub struct CacheArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: CacheAction,
}

/// The actions of `tritonc cache`.
#[derive(Debug, Clone, Copy, Subcommand)]
pub enum CacheAction {
    /// Print the cache directory.
    Dir,
    /// Print how many entries the cache holds and their size.
    Stats,
    /// Remove every entry.
    Clean,
}

/// `tritonc lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Files and directories to check (directories are walked for `*.py`, honouring
    /// .gitignore; files named here are always checked).
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,
    /// How to print findings (overrides the global `--format`).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub output_format: Option<LintFormat>,
    /// Apply safe fixes and write the files back.
    #[arg(long)]
    pub fix: bool,
    /// Apply unsafe fixes too (with `--fix` or `--diff`); alone, show them as available.
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the fixes as a unified diff instead of writing them.
    #[arg(long)]
    pub diff: bool,
    /// Rule codes or prefixes to enable, comma-separated, or `ALL` (replaces the
    /// configuration's `select` and `ignore`).
    #[arg(long, value_name = "CODES", value_delimiter = ',', value_parser = rule_selector)]
    pub select: Option<Vec<String>>,
    /// Rule codes or prefixes to enable in addition to the selected ones.
    #[arg(long, value_name = "CODES", value_delimiter = ',', value_parser = rule_selector)]
    pub extend_select: Vec<String>,
    /// Rule codes or prefixes to disable, comma-separated (added to the configuration's).
    #[arg(long, value_name = "CODES", value_delimiter = ',', value_parser = rule_selector)]
    pub ignore: Vec<String>,
    /// The same as `--ignore` (ruff's older spelling).
    #[arg(long, value_name = "CODES", value_delimiter = ',', value_parser = rule_selector)]
    pub extend_ignore: Vec<String>,
    /// Exit 0 even when there are findings (input and usage errors still exit 2).
    #[arg(long)]
    pub exit_zero: bool,
    /// Print how often each code was found instead of the findings (a JSON array with
    /// `--output-format json`).
    #[arg(long)]
    pub statistics: bool,
    /// Use this configuration file (`pyproject.toml` or `tritonc.toml`) for every file,
    /// instead of discovering the closest one.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// A rule selector of `--select`, `--ignore`…: an unknown one is a usage error that
/// lists the valid ones.
fn rule_selector(value: &str) -> Result<String, String> {
    tritonc_lint::settings::parse_selector(value)
}

/// `tritonc lint --output-format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// Source snippets with labels, notes and help, for people.
    Full,
    /// One line per finding: `path:row:col: CODE message`.
    Concise,
    /// A JSON array in ruff's shape (`code`, `message`, `filename`, `location`, `fix`…).
    Json,
    /// One JSON diagnostic object per line (tritonc's own diagnostic schema).
    JsonLines,
    /// SARIF 2.1.0, as GitHub code scanning accepts it.
    Sarif,
    /// GitHub Actions annotations.
    Github,
    /// GitLab Code Quality JSON (`description`, `check_name`, `fingerprint`, `severity`, `location`).
    Gitlab,
    /// pylint's parseable form: `path:row: [CODE] message`.
    Pylint,
    /// Azure Pipelines logging commands (`##vso[task.logissue …]`).
    Azure,
    /// The findings grouped by file: the path, then `row:col CODE message` lines.
    Grouped,
    /// JUnit XML: one test suite per file, one failing test case per finding.
    Junit,
    /// reviewdog's diagnostic format (rdjson), fixes as suggestions.
    Rdjson,
}

impl LintFormat {
    /// The lint format the global `--format` stands for when `--output-format` is absent.
    pub fn from_global(format: tritonc_diagnostics::Format) -> Self {
        use tritonc_diagnostics::Format;
        match format {
            Format::Terminal => LintFormat::Full,
            Format::Short => LintFormat::Concise,
            Format::Json => LintFormat::Json,
            Format::JsonLines => LintFormat::JsonLines,
            Format::Github => LintFormat::Github,
        }
    }

    /// Whether the output is for programs (summary lines then go to stderr).
    pub fn is_machine_readable(self) -> bool {
        !matches!(
            self,
            LintFormat::Full | LintFormat::Concise | LintFormat::Grouped
        )
    }
}

/// `tritonc run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The launch spec (TOML).
    pub spec: PathBuf,
    /// Run on the CPU interpreter instead of the GPU.
    #[arg(long)]
    pub interpret: bool,
    /// Launch a bundle from this directory (`tritonc compile -o DIR`) instead of
    /// compiling the kernel.
    #[arg(long, value_name = "DIR")]
    pub bundle: Option<PathBuf>,
    /// Write every output tensor to DIR/NAME.npy.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Interpreter: masked-off lanes of loads without `other=` read NaN (0x5a… for
    /// ints) instead of 0.
    #[arg(long)]
    pub poison_masked: bool,
    /// Triton's debug mode: device asserts are checked (as `debug = true` in the spec;
    /// also on with `TRITON_DEBUG=1`). A bundle must be compiled with it too.
    #[arg(long)]
    pub debug: bool,
    /// The target to compile for when no bundle is given; with `--interpret`, the target
    /// whose reduction and scan order the interpreter replays (a bundle's own otherwise).
    #[arg(long, value_name = "ARCH", default_value = "sm_90")]
    pub target: String,
    /// The Triton language version whose rules apply, as for `tritonc compile` (default:
    /// the project configuration's `triton-version`, else the environment's, else 3.6).
    #[arg(long, value_name = "VERSION")]
    pub triton_version: Option<tritonc_sema::TritonVersion>,
}

/// `tritonc verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The launch spec (TOML).
    pub spec: PathBuf,
    /// The stages to run, e.g. `1,3` or `2-4` (default: all five).
    #[arg(long, value_name = "STAGES", default_value = "1-5")]
    pub stages: String,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Launch bundles from this directory (`tritonc compile --spec SPEC -o DIR`).
    #[arg(long, value_name = "DIR")]
    pub bundle: Option<PathBuf>,
    /// Also compare stage 1 with upstream Triton running the same source
    /// (`triton`; needs python3 with triton and torch on a GPU host).
    #[arg(long, value_name = "WHAT", value_parser = ["triton"])]
    pub against: Option<String>,
    /// The Python interpreter for `--against triton`.
    #[arg(long, value_name = "PATH", default_value = "python3")]
    pub python: String,
    /// Use the CPU interpreter as the device under test (no GPU: checks the kernel
    /// against references, poisoned lanes and races only).
    #[arg(long)]
    pub interpret: bool,
    /// Triton's debug mode: device asserts are checked (as `debug = true` in the spec;
    /// also on with `TRITON_DEBUG=1`). Bundles must be compiled with it too.
    #[arg(long)]
    pub debug: bool,
    /// The target to compile for when no bundle is given; with `--interpret`, the target
    /// whose reduction and scan order the interpreter replays (a bundle's own otherwise).
    #[arg(long, value_name = "ARCH", default_value = "sm_90")]
    pub target: String,
    /// The Triton language version whose rules apply, as for `tritonc compile` (default:
    /// the project configuration's `triton-version`, else the environment's, else 3.6).
    #[arg(long, value_name = "VERSION")]
    pub triton_version: Option<tritonc_sema::TritonVersion>,
}

/// `tritonc tune`.
///
/// Compiles every config of the spec's autotuned kernel in parallel, runs each on the
/// spec's shapes (or `--key` values) from the same inputs, checks its answer against the
/// first config's, times the correct ones (warm-up, L2 flushed, median of rounds) and
/// records the fastest per key value in a tuning table next to the bundles, which `tritonc
/// run` and the Rust and Python launchers read. docs/tune.md has the details.
#[derive(Debug, Args)]
pub struct TuneArgs {
    /// Launch specs (TOML) of autotuned kernels, or directories of them (a
    /// `tritonc_rt.capture` output): their shapes are the tuning shapes.
    #[arg(value_name = "SPEC", required = true)]
    pub specs: Vec<PathBuf>,
    /// Tune these key values instead of the spec's: `--key M=4096` sets the argument, or
    /// the tensor dim it is read from (`M = "a.shape[0]"`); repeat for several keys.
    #[arg(long = "key", value_name = "NAME=VALUE")]
    pub keys: Vec<String>,
    /// Use the variants in this directory (compiled earlier with `--compile-only -o DIR`)
    /// instead of compiling: what a GPU host without the compiler does. The tuning table
    /// is written there.
    #[arg(long, value_name = "DIR", conflicts_with = "output_dir")]
    pub bundle: Option<PathBuf>,
    /// Where the variants and the tuning table go [default: tritonc-out].
    #[arg(short = 'o', long = "output-dir", value_name = "DIR")]
    pub output_dir: Option<PathBuf>,
    /// Compile every config's variant and stop (no GPU needed).
    #[arg(long, conflicts_with_all = ["bundle", "interpret"])]
    pub compile_only: bool,
    /// Run the configs on the CPU interpreter instead of a GPU (for testing the tuning:
    /// its times are the interpreter's).
    #[arg(long)]
    pub interpret: bool,
    /// What each config's answer is checked against: the first config that runs
    /// (Triton's order), or the interpreter running it.
    #[arg(long, value_enum, default_value_t = ReferenceArg::First)]
    pub reference: ReferenceArg,
    /// Tune again even when the table already holds these key values.
    #[arg(long)]
    pub force: bool,
    /// Timed rounds per config.
    #[arg(long, value_name = "N", default_value_t = 25, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Untimed launches per config before the rounds.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub warmup: u32,
    /// MiB written before every timed launch to flush L2 (0: no flush).
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    pub flush_mib: u64,
    /// Use at most N GPUs (one worker each; default: every GPU of GPU 0's model); with
    /// `--interpret`, the number of interpreter workers (default 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub devices: Option<u32>,
    /// The target to compile for.
    #[arg(long, value_name = "ARCH", default_value = "sm_90")]
    pub target: String,
    /// Compile on N threads (default: one per core).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// Neither read nor write the compile cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

/// `tritonc tune --reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReferenceArg {
    /// The first config that runs.
    First,
    /// The interpreter running the first config's kernel.
    Interpreter,
}

/// `tritonc rule`.
#[derive(Debug, Args)]
pub struct RuleArgs {
    /// The code or rule name to explain, e.g. E0101, TRI101 or unmasked-block-access.
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub code: Option<String>,
    /// List every code with its summary.
    #[arg(long)]
    pub all: bool,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour on terminals unless NO_COLOR is set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorChoice {
    /// The explicit choice, or `None` for auto.
    pub fn forced(self) -> Option<bool> {
        match self {
            ColorChoice::Auto => None,
            ColorChoice::Always => Some(true),
            ColorChoice::Never => Some(false),
        }
    }
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Source snippets with labels, for people.
    Terminal,
    /// One line per diagnostic: path:line:col: error[CODE]: message.
    Short,
    /// A JSON array of diagnostics.
    Json,
    /// One JSON object per line.
    JsonLines,
    /// GitHub Actions annotations.
    Github,
}

impl FormatArg {
    /// The renderer's format.
    pub fn format(self) -> tritonc_diagnostics::Format {
        use tritonc_diagnostics::Format;
        match self {
            FormatArg::Terminal => Format::Terminal,
            FormatArg::Short => Format::Short,
            FormatArg::Json => Format::Json,
            FormatArg::JsonLines => Format::JsonLines,
            FormatArg::Github => Format::Github,
        }
    }
}
