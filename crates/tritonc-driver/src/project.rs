//! The project a kernel file belongs to, read from the file system for sema's
//! cross-file resolution ([`tritonc_sema::ModuleLoader`]).
//!
//! The project root is the nearest ancestor directory of the file without an
//! `__init__.py` (Python's rule for where a package tree starts). Modules are read,
//! parsed and discovered once and cached; each gets a [`FileId`] handed out in order from
//! the first id the caller reserves, so diagnostics pointing into a helper's file render
//! once [`ProjectFiles::register`] has added the files to the command's [`SourceMap`].
//!
//! Discovery follows re-exports of Triton through the project: a module that writes
//! `from pkg.triton_utils import tl, triton`, where `pkg/triton_utils/__init__.py` imports
//! `triton` (in an `if HAS_TRITON:` branch or a `try`, with placeholders otherwise), has
//! its `@triton.jit` kernels found as if it imported `triton` itself
//! ([`FsLoader::reexported`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tritonc_diagnostics::{FileId, SourceMap};
use tritonc_sema::project::absolute;
use tritonc_sema::{LoadedModule, ModuleLoader, ModuleScope, Project, TritonVersion};
use tritonc_syntax::ast::{Module, Stmt, StmtKind};
use tritonc_syntax::resolve::is_triton_path;
use tritonc_syntax::{discover, discover_following, ModuleIndex, NameResolver, Reexport};

/// The nearest ancestor directory of `file` without an `__init__.py`.
pub fn project_root(file: &Path) -> PathBuf {
    let mut dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    while dir.join("__init__.py").is_file() {
        match dir.parent() {
            Some(up) if !up.as_os_str().is_empty() => dir = up.to_path_buf(),
            _ => break,
        }
    }
    dir
}

/// The dotted module name of `file` under `root`, and whether it is a package's
/// `__init__.py`; `None` when `file` is not under `root` or not a `.py` file.
pub fn module_name(root: &Path, file: &Path) -> Option<(String, bool)> {
    let rel = file.strip_prefix(root).ok()?;
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop()?;
    let stem = last.strip_suffix(".py")?;
    let is_package = stem == "__init__";
    if !is_package {
        parts.push(stem.to_string());
    }
    (!parts.is_empty()).then(|| (parts.join("."), is_package))
}

/// Files read for the project, with the ids they were parsed under.
#[derive(Debug)]
pub struct ProjectFiles {
    first: u32,
    files: Mutex<Vec<(PathBuf, Arc<str>)>>,
    /// Set by [`ProjectFiles::register`]: files read later would have ids the source map
    /// does not hold, so none are read.
    registered: AtomicBool,
}

impl ProjectFiles {
    /// Files whose ids start at `first` (the next id of the command's source map).
    pub fn new(first: FileId) -> Arc<ProjectFiles> {
        Arc::new(ProjectFiles {
            first: first.0,
            files: Mutex::new(Vec::new()),
            registered: AtomicBool::new(false),
        })
    }

    fn add(&self, path: PathBuf, text: Arc<str>) -> FileId {
        // Shown relative to the working directory, like the files named on the command line.
        let path = std::env::current_dir()
            .ok()
            .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
            .unwrap_or(path);
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.push((path, text));
        FileId(self.first + files.len() as u32 - 1)
    }

    /// Adds the files read so far to `sources`, which must have had `first` as its next
    /// id (nothing else was added since) for the ids to line up; a map that moved on
    /// gets nothing (diagnostics in those files then show without source).
    pub fn register(&self, sources: &mut SourceMap) {
        if self.registered.swap(true, Ordering::SeqCst) || sources.len() as u32 != self.first {
            return;
        }
        let files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        for (path, text) in files.iter() {
            sources.add(path, text.clone());
        }
    }
}

/// A module read for the project, with the absolute module paths its imports name
/// (`None`: no such module in the project).
type CachedModule = Option<(Arc<LoadedModule>, Vec<String>)>;

/// What following a re-export needs of a module: its own imports, unfollowed, and the
/// names it defines itself (`None`: no such module in the project).
type ImportsOnly = Option<Arc<(NameResolver, Vec<String>, bool)>>;

/// How many modules a chain of re-exports may pass through.
const MAX_REEXPORT_CHAIN: usize = 16;

/// Reads the modules of one project root.
struct FsLoader {
    root: PathBuf,
    files: Arc<ProjectFiles>,
    cache: Mutex<HashMap<String, CachedModule>>,
    /// Modules read for their imports alone, to follow re-exports.
    imports: Mutex<HashMap<String, ImportsOnly>>,
}

impl FsLoader {
    /// The module and the absolute module paths its imports may name.
    fn load_with_imports(&self, dotted: &str) -> CachedModule {
        if let Some(hit) = self.lock().get(dotted) {
            return hit.clone();
        }
        let loaded = self.read(dotted);
        self.lock()
            .entry(dotted.to_string())
            .or_insert(loaded)
            .clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, CachedModule>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn read(&self, dotted: &str) -> CachedModule {
        if dotted.split('.').any(str::is_empty)
            || is_triton_path(dotted)
            || self.files.registered.load(Ordering::SeqCst)
        {
            return None;
        }
        let (path, is_package) = self.module_file(dotted)?;
        let text: Arc<str> = Arc::from(std::fs::read_to_string(&path).ok()?);
        let file = self.files.add(path, text.clone());
        let parsed = tritonc_syntax::parse_module(file, &text);
        let imports = imported_modules(&parsed.module, dotted, is_package);
        let module = LoadedModule {
            name: dotted.to_string(),
            is_package,
            index: self.discover(&parsed.module, dotted, is_package),
        };
        Some((Arc::new(module), imports))
    }

    /// Discovery of module `name` of this project, with Triton re-exports followed.
    fn discover(&self, module: &Module, name: &str, is_package: bool) -> ModuleIndex {
        discover_following(module, &|path| self.reexported(path, name, is_package))
    }

    /// What `path`, as module `importer` imports it, stands for when a project module
    /// re-exports Triton under that name: `vllm.triton_utils.tl.exp` is
    /// `triton.language.exp` when `vllm/triton_utils/__init__.py` binds `tl` to
    /// `triton.language` ([`Reexport::Paths`]); a project module itself answers the names
    /// in it that re-export Triton ([`Reexport::Module`]).
    fn reexported(&self, path: &str, importer: &str, is_package: bool) -> Reexport {
        let Some(abs) = absolute(path, importer, is_package) else {
            return Reexport::None;
        };
        if is_triton_path(&abs) {
            return Reexport::None;
        }
        if self.module_file(&abs).is_some() {
            let Some(m) = self.imports_only(&abs) else {
                return Reexport::None;
            };
            let names: HashMap<String, Vec<String>> =
                m.0.names()
                    .filter(|n| !m.1.iter().any(|d| d == n))
                    .filter_map(|n| {
                        let paths = self.triton_paths(&format!("{abs}.{n}"));
                        (!paths.is_empty()).then(|| (n.to_string(), paths))
                    })
                    .collect();
            return Reexport::Module(names);
        }
        Reexport::Paths(self.triton_paths(&abs))
    }

    /// The Triton paths the absolute, non-Triton `abs` stands for through the project's
    /// re-exports. The deepest project module on the path decides (Python looks a name up
    /// in the package before its submodules); of the alternatives it chooses between, the
    /// Triton ones are kept (the placeholders a module binds when Triton is not installed
    /// are not Triton). A chain of re-exports (`a` imports `tl` from `b`, which imports it
    /// from `c`) is followed through each module's own imports, up to
    /// [`MAX_REEXPORT_CHAIN`] modules. Empty when the path is not such a re-export.
    fn triton_paths(&self, abs: &str) -> Vec<String> {
        let mut found = Vec::new();
        let mut work = vec![(abs.to_string(), 0)];
        let mut seen: Vec<String> = Vec::new();
        while let Some((abs, depth)) = work.pop() {
            if is_triton_path(&abs) {
                if depth > 0 && !found.contains(&abs) {
                    found.push(abs);
                }
                continue;
            }
            if depth >= MAX_REEXPORT_CHAIN
                || seen.contains(&abs)
                || self.module_file(&abs).is_some()
            {
                // A cycle, too long a chain, or a module itself (not a name in one).
                continue;
            }
            seen.push(abs.clone());
            let parts: Vec<&str> = abs.split('.').collect();
            for i in (1..parts.len()).rev() {
                let module = parts[..i].join(".");
                let Some(m) = self.imports_only(&module) else {
                    continue;
                };
                let (resolver, defined, m_is_package) = &*m;
                let name = parts[i];
                // A name the module defines itself is its own, not an import.
                if !defined.iter().any(|d| d == name) {
                    let rest = parts[i + 1..].join(".");
                    for p in resolver.resolve_name(name) {
                        let p = if rest.is_empty() {
                            p
                        } else {
                            format!("{p}.{rest}")
                        };
                        if let Some(next) = absolute(&p, &module, *m_is_package) {
                            work.push((next, depth + 1));
                        }
                    }
                }
                break;
            }
        }
        // Source order of the alternatives (the work list is a stack).
        found.reverse();
        found
    }

    /// The file of project module `dotted` and whether it is a package's `__init__.py`.
    fn module_file(&self, dotted: &str) -> Option<(PathBuf, bool)> {
        if dotted.split('.').any(str::is_empty) {
            return None;
        }
        let base = dotted.split('.').fold(self.root.clone(), |p, s| p.join(s));
        [
            (base.with_extension("py"), false),
            (base.join("__init__.py"), true),
        ]
        .into_iter()
        .find(|(p, _)| p.is_file())
    }

    /// Module `dotted`'s own imports and the names it defines, parsed once (not
    /// discovered, and not added to the source map: nothing points into it).
    fn imports_only(&self, dotted: &str) -> ImportsOnly {
        let lock = || self.imports.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(hit) = lock().get(dotted) {
            return hit.clone();
        }
        let read = || -> ImportsOnly {
            if is_triton_path(dotted) {
                return None;
            }
            let (path, is_package) = self.module_file(dotted)?;
            let text = std::fs::read_to_string(&path).ok()?;
            let parsed = tritonc_syntax::parse_module(FileId(u32::MAX), &text);
            let defined = parsed
                .module
                .body
                .iter()
                .filter_map(|s| match &s.kind {
                    StmtKind::FunctionDef(f) => Some(f.name.name.clone()),
                    StmtKind::ClassDef(c) => Some(c.name.name.clone()),
                    _ => None,
                })
                .collect();
            Some(Arc::new((
                NameResolver::from_module(&parsed.module),
                defined,
                is_package,
            )))
        };
        let value = read();
        lock().entry(dotted.to_string()).or_insert(value).clone()
    }

    /// Loads every project module reachable through the imports of `imports`.
    fn preload(&self, imports: Vec<String>) {
        let mut work = imports;
        let mut seen: Vec<String> = Vec::new();
        while let Some(path) = work.pop() {
            // `a.b.c` may be a module or a name in `a.b`: try every prefix.
            let parts: Vec<&str> = path.split('.').collect();
            for i in 1..=parts.len() {
                let m = parts[..i].join(".");
                if seen.contains(&m) {
                    continue;
                }
                seen.push(m.clone());
                if let Some((_, more)) = self.load_with_imports(&m) {
                    work.extend(more);
                } else if i == 1 {
                    break;
                }
            }
        }
    }
}

impl ModuleLoader for FsLoader {
    fn load(&self, dotted: &str) -> Option<Arc<LoadedModule>> {
        self.load_with_imports(dotted).map(|(m, _)| m)
    }
}

/// The absolute module paths a module's imports may name (`from .ops import f` gives
/// `pkg.ops` and `pkg.ops.f`); Triton's are left out.
fn imported_modules(module: &Module, name: &str, is_package: bool) -> Vec<String> {
    fn walk(stmts: &[Stmt], name: &str, is_package: bool, out: &mut Vec<String>) {
        for s in stmts {
            match &s.kind {
                StmtKind::Import(aliases) => {
                    out.extend(aliases.iter().map(|a| a.name.name.clone()))
                }
                StmtKind::ImportFrom {
                    module,
                    level,
                    names,
                } => {
                    let mut base = ".".repeat(*level as usize);
                    if let Some(m) = module {
                        base.push_str(&m.name);
                    }
                    let Some(abs) = absolute(&base, name, is_package) else {
                        continue;
                    };
                    for a in names {
                        if a.name.name != "*" {
                            out.push(format!("{abs}.{}", a.name.name));
                        }
                    }
                    out.push(abs);
                }
                StmtKind::If { body, orelse, .. } => {
                    walk(body, name, is_package, out);
                    walk(orelse, name, is_package, out);
                }
                StmtKind::Try(t) => {
                    walk(&t.body, name, is_package, out);
                    for h in &t.handlers {
                        walk(&h.body, name, is_package, out);
                    }
                    walk(&t.orelse, name, is_package, out);
                    walk(&t.finalbody, name, is_package, out);
                }
                StmtKind::With { body, .. } => walk(body, name, is_package, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&module.body, name, is_package, &mut out);
    out.retain(|p| !is_triton_path(p));
    out
}

/// Cross-file scopes for the files of one command: one loader per project root.
pub struct Projects {
    /// A configured project root, used instead of the `__init__.py` rule.
    root: Option<PathBuf>,
    files: Arc<ProjectFiles>,
    roots: Mutex<HashMap<PathBuf, Arc<Project>>>,
    loaders: Mutex<HashMap<PathBuf, Arc<FsLoader>>>,
}

/// A loader shared between the [`Project`] and the eager import walk.
struct SharedLoader(Arc<FsLoader>);

impl ModuleLoader for SharedLoader {
    fn load(&self, dotted: &str) -> Option<Arc<LoadedModule>> {
        self.0.load(dotted)
    }
}

impl Projects {
    /// Projects whose files get ids from `first` on (see [`ProjectFiles::register`]).
    pub fn new(first: FileId) -> Projects {
        Projects {
            root: None,
            files: ProjectFiles::new(first),
            roots: Mutex::new(HashMap::new()),
            loaders: Mutex::new(HashMap::new()),
        }
    }

    /// Projects under one configured root (a `src/` layout, a repository whose packages
    /// have no `__init__.py`), for files below it.
    pub fn with_root(first: FileId, root: PathBuf) -> Projects {
        let root = std::fs::canonicalize(&root).unwrap_or(root);
        Projects {
            root: Some(root),
            ..Projects::new(first)
        }
    }

    /// The scope of the kernel file `path` (parsed as `module`, discovered as `index`),
    /// whose imports reach its project's other modules. With `preload`, every module its
    /// imports reach is read now (so that [`Projects::register`] can run before
    /// lowering); otherwise modules are read as lowering asks for them.
    pub fn scope(
        &self,
        path: &Path,
        module: &Module,
        index: &ModuleIndex,
        preload: bool,
    ) -> ModuleScope {
        let Some((root, loader, name, is_package)) = self.loader_for(path) else {
            return ModuleScope::from_index(index);
        };
        if preload {
            loader.preload(imported_modules(module, &name, is_package));
        }
        let project = {
            let mut roots = self.roots.lock().unwrap_or_else(|e| e.into_inner());
            roots
                .entry(root)
                .or_insert_with(|| Project::new(SharedLoader(loader)))
                .clone()
        };
        project.root_scope(index, &name, is_package)
    }

    /// Discovery of the kernel file `path` (parsed as `module`) in its project: names it
    /// imports from a project module that re-exports Triton resolve to Triton's paths
    /// (`from pkg.triton_utils import triton` makes `@triton.jit` a kernel). Modules read
    /// for that are added to the source map by [`Projects::register`].
    pub fn discover(&self, path: &Path, module: &Module) -> ModuleIndex {
        match self.loader_for(path) {
            Some((_, loader, name, is_package)) => loader.discover(module, &name, is_package),
            None => discover(module),
        }
    }

    /// The project root of `path`, its loader, and the file's module name and whether it
    /// is a package's `__init__.py`; `None` for a file outside any module tree.
    fn loader_for(&self, path: &Path) -> Option<(PathBuf, Arc<FsLoader>, String, bool)> {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let root = match &self.root {
            Some(r) if path.starts_with(r) => r.clone(),
            _ => project_root(&path),
        };
        let (name, is_package) = module_name(&root, &path)?;
        let loader = {
            let mut loaders = self.loaders.lock().unwrap_or_else(|e| e.into_inner());
            loaders
                .entry(root.clone())
                .or_insert_with(|| {
                    Arc::new(FsLoader {
                        root: root.clone(),
                        files: self.files.clone(),
                        cache: Mutex::new(HashMap::new()),
                        imports: Mutex::new(HashMap::new()),
                    })
                })
                .clone()
        };
        Some((root, loader, name, is_package))
    }

    /// Adds every file read so far to `sources` (see [`ProjectFiles::register`]).
    pub fn register(&self, sources: &mut SourceMap) {
        self.files.register(sources);
    }
}

/// The project model as launch specs use it (`tritonc run`, `verify`, `compile --spec`):
/// a spec's kernel file resolves its imports through its project, as `compile` and
/// `lint` resolve them, and is specialized for the Triton version `compile` would use
/// for it ([`crate::config::triton_version`]). The files read are added to the caller's
/// source map.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProjectScopes {
    /// The version the command line gives (`--triton-version`), if any.
    pub triton_version: Option<TritonVersion>,
}

impl tritonc_spec::KernelScopes for ProjectScopes {
    fn scope(&self, kernel_path: &Path, module: &Module, sources: &mut SourceMap) -> ModuleScope {
        let projects = Projects::new(FileId(sources.len() as u32));
        let index = projects.discover(kernel_path, module);
        let scope = projects.scope(kernel_path, module, &index, true);
        projects.register(sources);
        scope
    }

    fn triton_version(&self, kernel_path: &Path) -> TritonVersion {
        crate::config::triton_version(self.triton_version, kernel_path).0
    }
}

/// [`ProjectScopes`], shared, for a `tritonc_verify::VerifySpec`'s `scopes`, with the
/// command line's `--triton-version` if given.
pub fn spec_scopes(triton_version: Option<TritonVersion>) -> Arc<dyn tritonc_spec::KernelScopes> {
    Arc::new(ProjectScopes { triton_version })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_under_a_root() {
        let root = Path::new("/p");
        assert_eq!(
            module_name(root, Path::new("/p/pkg/ops.py")),
            Some(("pkg.ops".to_string(), false))
        );
        assert_eq!(
            module_name(root, Path::new("/p/pkg/__init__.py")),
            Some(("pkg".to_string(), true))
        );
        assert_eq!(module_name(root, Path::new("/q/x.py")), None);
    }

    #[test]
    fn the_root_is_the_first_directory_without_an_init() {
        let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tritonc/tests/fixtures/xfile");
        assert_eq!(project_root(&fixture.join("mypkg/kernels.py")), fixture);
        // A configured root above it makes `xfile` a namespace package.
        let up = fixture.parent().unwrap().to_path_buf();
        let projects = Projects::with_root(FileId(1), up);
        let path = fixture.join("mypkg/kernels.py");
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = tritonc_syntax::parse_module(FileId(0), &text);
        let index = discover(&parsed.module);
        let scope = projects.scope(&path, &parsed.module, &index, true);
        assert_eq!(scope.name.as_deref(), Some("xfile.mypkg.kernels"));
        assert!(scope
            .resolve(
                "BLOCK_DEFAULT",
                tritonc_diagnostics::Span::point(FileId(0), 0)
            )
            .unwrap()
            .is_some());
    }
}
