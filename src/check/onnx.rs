//! ONNX Runtime and model directories, shared by the `nli` and `similarity` checkers.
//!
//! ONNX Runtime is loaded at run time (ort `load-dynamic`): from `ORT_DYLIB_PATH`, else from
//! `onnxruntime/capi/libonnxruntime.so*` under the site-packages of the `python3` on PATH (the
//! `onnxruntime` wheel ships it). A model directory holds `model.onnx`, `tokenizer.json` and
//! `config.json`, as `optimum` exports them.

use ndarray::Array2;
use ort::session::Session;
use ort::value::TensorRef;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer};

/// The ONNX Runtime version the `ort` crate's API (feature `api-31`) is built against; the setup
/// installs the matching `onnxruntime` wheel.
pub(crate) const ORT_WHEEL: &str = "onnxruntime==1.31.1";

/// How to install ONNX Runtime, for error messages and `doctor`.
pub(crate) fn install_hint() -> String {
    format!("install it with `python3 -m pip install {ORT_WHEEL}`, or set ORT_DYLIB_PATH to a libonnxruntime.so")
}

/// Settings of a model checker (`nli` and `similarity` share them).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelSettings {
    /// `nli`: least entailment probability for `supported`; `similarity`: least cosine.
    pub threshold: f64,
    pub batch_size: usize,
    pub threads: usize,
    pub max_window_sentences: usize,
    /// `nli` only: which output means supported (and contradicted), overriding id2label.
    pub labels: Option<LabelMap>,
    /// `nli` only: one input text built from the premise and the claim, for classifiers that
    /// read one text (`{premise}` and `{claim}` are replaced).
    pub template: Option<String>,
    /// ONNX Runtime execution providers in order of preference (empty: CPU).
    pub providers: Vec<Provider>,
    /// Score only the K windows per claim that share the most words with it (None: all).
    pub top_windows: Option<usize>,
}

/// An ONNX Runtime execution provider a checker may ask for (`providers:` in its config).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    serde::Serialize,
    serde::Deserialize,
    strum::IntoStaticStr,
    strum::VariantArray,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Provider {
    Cpu,
    Cuda,
    Tensorrt,
    Rocm,
    Openvino,
}

impl Provider {
    pub const ALL: [Provider; 5] = [
        Provider::Cpu,
        Provider::Cuda,
        Provider::Tensorrt,
        Provider::Rocm,
        Provider::Openvino,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// True when the loaded ONNX Runtime was built with this provider (the CPU one always is).
    pub fn available(self) -> Result<bool, String> {
        use ort::ep::ExecutionProvider;
        runtime()?;
        let r = match self {
            Provider::Cpu => return Ok(true),
            Provider::Cuda => ort::ep::CUDA::is_available(),
            Provider::Tensorrt => ort::ep::TensorRT::is_available(),
            Provider::Rocm => ort::ep::ROCm::is_available(),
            Provider::Openvino => ort::ep::OpenVINO::is_available(),
        };
        r.map_err(|e| format!("cannot ask ONNX Runtime for its providers: {e}"))
    }

    fn dispatch(self) -> ort::ep::ExecutionProviderDispatch {
        match self {
            Provider::Cpu => ort::ep::CPU::default().build(),
            Provider::Cuda => ort::ep::CUDA::default().build(),
            Provider::Tensorrt => ort::ep::TensorRT::default().build(),
            Provider::Rocm => ort::ep::ROCm::default().build(),
            Provider::Openvino => ort::ep::OpenVINO::default().build(),
        }
    }
}

/// The providers the loaded ONNX Runtime offers.
pub fn available_providers() -> Result<Vec<Provider>, String> {
    let mut v = Vec::new();
    for p in Provider::ALL {
        if p.available()? {
            v.push(p);
        }
    }
    Ok(v)
}

impl ModelSettings {
    /// The defaults of a checker kind: threshold 0.5 for `nli`, 0.7 for `similarity`.
    pub fn defaults(kind: &str) -> ModelSettings {
        ModelSettings {
            threshold: if kind == "similarity" { 0.7 } else { 0.5 },
            batch_size: 32,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            max_window_sentences: 2,
            labels: None,
            template: None,
            providers: Vec::new(),
            top_windows: None,
        }
    }
}

/// The architecture family a model folder declares (`model_type` in config.json): it decides the
/// real length limit and what the tokenizer's pair template looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Family {
    /// WordPiece, `[CLS] A [SEP] B [SEP]`, token_type_ids.
    Bert,
    /// Byte-level BPE, `<s> A </s></s> B </s>`, no token_type_ids; position ids start after the
    /// padding index, so the limit is max_position_embeddings - (pad_token_id + 1) (514 → 512).
    Roberta,
    /// SentencePiece (Unigram), `[CLS] A [SEP] B [SEP]`, relative positions.
    Deberta,
    /// Anything else: max_position_embeddings is taken as the limit.
    Other(String),
}

impl Family {
    pub fn of(model_type: &str) -> Family {
        match model_type {
            "bert" | "distilbert" | "electra" | "albert" | "mobilebert" => Family::Bert,
            "roberta" | "xlm-roberta" | "camembert" | "xlm-roberta-xl" => Family::Roberta,
            "deberta" | "deberta-v2" => Family::Deberta,
            other => Family::Other(other.to_string()),
        }
    }
}

impl std::fmt::Display for Family {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Family::Bert => write!(f, "BERT (WordPiece; [CLS] A [SEP] B [SEP])"),
            Family::Roberta => write!(f, "RoBERTa (byte-level BPE; <s> A </s></s> B </s>)"),
            Family::Deberta => write!(f, "DeBERTa (SentencePiece; [CLS] A [SEP] B [SEP])"),
            Family::Other(t) if t.is_empty() => {
                write!(f, "unknown (config.json has no model_type)")
            }
            Family::Other(t) => write!(
                f,
                "{t} (not a family faithprobe knows: max_position_embeddings is taken as the limit)"
            ),
        }
    }
}

/// The ONNX Runtime library in one site-packages folder, if it has one.
fn lib_in_site(site: &Path) -> Option<PathBuf> {
    let capi = site.join("onnxruntime").join("capi");
    let mut libs: Vec<PathBuf> = std::fs::read_dir(&capi)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libonnxruntime.so") || n == "libonnxruntime.dylib")
        })
        .collect();
    libs.sort();
    libs.pop()
}

/// The ONNX Runtime library of a Python environment rooted at `prefix` (`lib/python3.*/site-packages`).
fn lib_in_prefix(prefix: &Path) -> Option<PathBuf> {
    let mut pythons: Vec<PathBuf> = std::fs::read_dir(prefix.join("lib"))
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("python"))
        })
        .collect();
    pythons.sort();
    pythons
        .iter()
        .rev()
        .find_map(|py| lib_in_site(&py.join("site-packages")))
}

/// The prefix of the virtual environment whose `bin/python3` is the first python3 on PATH
/// (the folder above it holds `pyvenv.cfg`), or `None` when that python3 is no environment's.
fn venv_python_on_path() -> Option<PathBuf> {
    venv_python_in(&std::env::var_os("PATH")?)
}

/// [`venv_python_on_path`] for the search path `path`.
fn venv_python_in(path: &std::ffi::OsStr) -> Option<PathBuf> {
    let first = std::env::split_paths(path)
        .map(|d| d.join("python3"))
        .find(|p| p.is_file())?;
    let prefix = first.parent()?.parent()?;
    prefix
        .join("pyvenv.cfg")
        .is_file()
        .then(|| prefix.to_path_buf())
}

/// Finds the ONNX Runtime shared library: `ORT_DYLIB_PATH`; else the active virtual environment
/// (`VIRTUAL_ENV`); else the Python environment faithprobe itself is installed in (a
/// `pip install faithprobe[onnx]`: the binary sits in its `bin/`); else the site-packages of the
/// `python3` on PATH (read from its folders when it is a virtual environment's, else asked).
pub fn find_runtime() -> Result<PathBuf, String> {
    if let Some(lib) = std::env::var_os("VIRTUAL_ENV")
        .filter(|_| std::env::var_os("ORT_DYLIB_PATH").is_none())
        .and_then(|v| lib_in_prefix(Path::new(&v)))
    {
        return Ok(lib);
    }
    if std::env::var_os("ORT_DYLIB_PATH").is_none() {
        let own = std::env::current_exe()
            .ok()
            .and_then(|exe| exe.parent()?.parent().map(Path::to_path_buf));
        if let Some(lib) = own.and_then(|prefix| lib_in_prefix(&prefix)) {
            return Ok(lib);
        }
    }
    if let Some(p) = std::env::var_os("ORT_DYLIB_PATH").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "ORT_DYLIB_PATH is {}, which is not a file",
                p.display()
            ))
        };
    }
    // the python3 on PATH of a virtual environment lists that environment's site-packages
    // first: look there before starting it (starting Python costs about 60 ms)
    if let Some(lib) = venv_python_on_path().and_then(|prefix| lib_in_prefix(&prefix)) {
        return Ok(lib);
    }
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import site, sys\nfor p in site.getsitepackages() + [site.getusersitepackages()] + sys.path: print(p)",
        ])
        .output()
        .map_err(|e| format!("could not run python3 to find site-packages ({e}); {}", install_hint()))?;
    for dir in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(lib) = lib_in_site(Path::new(dir)) {
            return Ok(lib);
        }
    }
    Err(format!("ONNX Runtime not found (ORT_DYLIB_PATH unset; no onnxruntime/capi/libonnxruntime.so* in python3's site-packages); {}", install_hint()))
}

/// The loaded runtime: its library path and the process-wide environment sessions are built in.
pub struct Runtime {
    pub path: PathBuf,
    env: ort::environment::Environment,
}

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// Loads ONNX Runtime once per process.
pub fn runtime() -> Result<&'static Runtime, String> {
    let r = RUNTIME.get_or_init(|| {
        let path = find_runtime()?;
        let builder = ort::init_from(&path).map_err(|e| {
            format!(
                "could not load ONNX Runtime from {}: {e}; {}",
                path.display(),
                install_hint()
            )
        })?;
        let env = builder
            .with_name("faithprobe")
            .build()
            .map_err(|e| format!("could not start ONNX Runtime from {}: {e}", path.display()))?;
        Ok(Runtime { path, env })
    });
    r.as_ref().map_err(|e| e.clone())
}

/// The runtime's version: from the library's file name (`libonnxruntime.so.1.31.1`), else its
/// build info.
pub fn runtime_version(path: &Path) -> String {
    if let Some(v) = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.split_once(".so."))
        .map(|(_, v)| v.to_string())
    {
        return v;
    }
    let info = ort::info();
    info.split(',')
        .find_map(|p| p.trim().strip_prefix("git-branch=rel-"))
        .map(str::to_string)
        .unwrap_or_else(|| info.to_string())
}

/// A tokenised batch: input_ids, attention_mask, token_type_ids, each [batch, longest].
pub(crate) type Encoded = (Array2<i64>, Array2<i64>, Array2<i64>);

/// One input or output of a model, for `doctor`.
#[derive(Debug, Clone)]
pub struct Port {
    pub name: String,
    pub description: String,
}

/// A loaded model directory.
pub struct Model {
    pub dir: PathBuf,
    /// One session, or (after [`Model::split_sessions`]) one single-threaded session per
    /// worker, so that pairs scored one per call still keep every core busy.
    sessions: Vec<Mutex<Session>>,
    tokenizer: Tokenizer,
    /// Labels in output order, from `config.json` `id2label` (empty for embedding models).
    pub labels: Vec<String>,
    /// Longest input in tokens the model takes.
    pub max_len: usize,
    /// The architecture family from config.json.
    pub family: Family,
    /// The execution providers the session was given, in order of preference.
    pub providers: Vec<String>,
    /// Width of the first output's last axis when the graph fixes it (the number of logits).
    pub output_width: Option<usize>,
    /// SHA-256 of model.onnx, first 16 hex digits.
    pub hash: String,
    pub inputs: Vec<Port>,
    pub outputs: Vec<Port>,
}

/// What a model directory's `config.json` says: the labels in output order (`id2label`), the
/// architecture family, the longest input in tokens, the pad token's id.
struct ConfigJson {
    labels: Vec<String>,
    family: Family,
    max_len: usize,
    pad_token_id: Option<u64>,
}

impl ConfigJson {
    fn read(dir: &Path) -> Result<ConfigJson, String> {
        let config_path = dir.join("config.json");
        let config_text = std::fs::read_to_string(&config_path)
            .map_err(|e| format!("{}: cannot read: {e}", config_path.display()))?;
        let config: serde_json::Value = serde_json::from_str(&config_text).map_err(|e| {
            format!(
                "{}:{}: not valid JSON: {e}",
                config_path.display(),
                e.line()
            )
        })?;
        let mut labels: Vec<(usize, String)> = Vec::new();
        if let Some(map) = config.get("id2label").and_then(|v| v.as_object()) {
            for (k, v) in map {
                let i: usize = k.parse().map_err(|_| {
                    format!(
                        "{}: id2label key `{k}` is not a number",
                        config_path.display()
                    )
                })?;
                labels.push((i, v.as_str().unwrap_or_default().to_lowercase()));
            }
        }
        labels.sort();
        if labels.iter().enumerate().any(|(pos, (i, _))| pos != *i) {
            return Err(format!(
                "{}: id2label ids are not 0..n",
                config_path.display()
            ));
        }
        let labels: Vec<String> = labels.into_iter().map(|(_, l)| l).collect();
        let family = Family::of(
            config
                .get("model_type")
                .and_then(|v| v.as_str())
                .unwrap_or_default(),
        );
        let positions = config
            .get("max_position_embeddings")
            .and_then(|v| v.as_u64())
            .unwrap_or(512) as usize;
        let pad_token_id = config.get("pad_token_id").and_then(|v| v.as_u64());
        let max_len = match family {
            // RoBERTa numbers positions from padding_idx + 1: 514 embeddings hold 512 tokens
            Family::Roberta => {
                let pad = pad_token_id.unwrap_or(1) as usize;
                positions.saturating_sub(pad + 1).max(1)
            }
            _ => positions,
        };
        Ok(ConfigJson {
            labels,
            family,
            max_len,
            pad_token_id,
        })
    }
}

/// The model's `tokenizer.json`, padding to the longest in a batch with the model's own pad
/// token (the tokenizer's padding settings when it has them, else config.json's `pad_token_id`,
/// else a `<pad>` or `[PAD]` token) and never truncating.
fn tokenizer(dir: &Path, pad_token_id: Option<u64>) -> Result<Tokenizer, String> {
    let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
        .map_err(|e| model_err(dir, format!("cannot read tokenizer.json: {e}")))?;
    let pad = match tokenizer.get_padding().cloned() {
        Some(p) => p,
        None => {
            let by_config = pad_token_id.map(|id| id as u32);
            let by_name = ["<pad>", "[PAD]", "<PAD>"]
                .iter()
                .find_map(|t| tokenizer.token_to_id(t).map(|id| (id, t.to_string())));
            match (by_config, by_name) {
                (Some(id), _) => PaddingParams {
                    pad_id: id,
                    pad_token: tokenizer.id_to_token(id).unwrap_or_default(),
                    ..Default::default()
                },
                (None, Some((id, token))) => PaddingParams {
                    pad_id: id,
                    pad_token: token,
                    ..Default::default()
                },
                (None, None) => PaddingParams::default(),
            }
        }
    };
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_to_multiple_of: None,
        ..pad
    }));
    tokenizer
        .with_truncation(None)
        .map_err(|e| model_err(dir, format!("cannot switch truncation off: {e}")))?;
    Ok(tokenizer)
}

/// `n` single-threaded CPU sessions of `bytes`, each built on its own thread of `scope` (a
/// build is mostly one thread's graph optimisation, so they go side by side).
fn spawn_single_threaded<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    dir: &'scope Path,
    bytes: &'scope [u8],
    n: usize,
) -> Vec<std::thread::ScopedJoinHandle<'scope, Result<Session, String>>> {
    (0..n)
        .map(|_| scope.spawn(move || session_on(dir, 1, &[], bytes).map(|(s, _)| s)))
        .collect()
}

/// The sessions [`spawn_single_threaded`] built, in order; a build that panicked is an error.
fn join_builds(
    dir: &Path,
    handles: Vec<std::thread::ScopedJoinHandle<'_, Result<Session, String>>>,
) -> Vec<Result<Session, String>> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(model_err(dir, "a session build panicked")))
        })
        .collect()
}

/// An ONNX Runtime session of `model.onnx` (its `bytes`) on the first of `providers` the
/// runtime offers, and the providers it was given (see [`Model::load_on`]).
fn session_on(
    dir: &Path,
    threads: usize,
    providers: &[Provider],
    bytes: &[u8],
) -> Result<(Session, Vec<String>), String> {
    let rt = runtime()?;
    let mut builder = Session::builder(&rt.env)
        .map_err(|e| model_err(dir, format!("session: {e}")))?
        .with_intra_threads(threads.max(1))
        .map_err(|e| model_err(dir, format!("session options: {e}")))?;
    let mut on = vec!["cpu".to_string()];
    if !providers.is_empty() {
        let offered = available_providers()?;
        let usable: Vec<Provider> = providers
            .iter()
            .copied()
            .filter(|p| offered.contains(p))
            .collect();
        let cpu_allowed = providers.contains(&Provider::Cpu);
        if usable.iter().all(|p| *p == Provider::Cpu) && !cpu_allowed {
            return Err(model_err(
                dir,
                format!(
                    "providers [{}] were asked for, but the ONNX Runtime at {} offers only [{}]; install a build that has them (for CUDA, the onnxruntime-gpu wheel with its CUDA libraries, then `faithprobe doctor`), or add `cpu` to the list to allow running on the CPU",
                    providers.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", "),
                    rt.path.display(),
                    offered.iter().map(|p| p.as_str()).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        // a provider that is there but fails to start is an error too, unless cpu is allowed
        let eps: Vec<_> = usable
            .iter()
            .map(|p| {
                let d = p.dispatch();
                if cpu_allowed {
                    d
                } else {
                    d.error_on_failure()
                }
            })
            .collect();
        builder = builder
            .with_execution_providers(eps)
            .map_err(|e| model_err(dir, format!("execution providers: {e}")))?;
        on = usable.iter().map(|p| p.as_str().to_string()).collect();
        if usable.len() < providers.len() {
            crate::io::notes::note(format!(
                "model {}: providers {} are not in this ONNX Runtime; running on {}",
                dir.display(),
                providers
                    .iter()
                    .filter(|p| !usable.contains(p))
                    .map(|p| p.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                on.join(", ")
            ));
        }
    }
    let session = builder
        .commit_from_memory(bytes)
        .map_err(|e| model_err(dir, format!("ONNX Runtime cannot load model.onnx: {e}")))?;
    Ok((session, on))
}

fn model_err(dir: &Path, what: impl std::fmt::Display) -> String {
    format!("model {}: {what}", dir.display())
}

/// The model's input arrays from padded encodings.
fn arrays(encodings: &[tokenizers::Encoding]) -> Encoded {
    let n = encodings.len();
    let len = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
    let mut ids = Array2::<i64>::zeros((n, len));
    let mut mask = Array2::<i64>::zeros((n, len));
    let mut types = Array2::<i64>::zeros((n, len));
    for (r, e) in encodings.iter().enumerate() {
        for (c, ((id, m), t)) in e
            .get_ids()
            .iter()
            .zip(e.get_attention_mask())
            .zip(e.get_type_ids())
            .enumerate()
        {
            ids[[r, c]] = *id as i64;
            mask[[r, c]] = *m as i64;
            types[[r, c]] = *t as i64;
        }
    }
    (ids, mask, types)
}

impl Model {
    /// Loads `model.onnx`, `tokenizer.json` and `config.json` from `dir`. The tokenizer's own
    /// padding and truncation settings are replaced: pad to the longest in the batch, never
    /// truncate (faithprobe checks lengths itself).
    pub fn load(dir: &Path, threads: usize) -> Result<Model, String> {
        Model::load_on(dir, threads, &[])
    }

    /// [`Model::load`] on the first of `providers` the loaded ONNX Runtime offers. A provider
    /// asked for that the runtime lacks is an error unless `cpu` is in the list too (then the
    /// model runs on the CPU, as the list allows); never a silent CPU run.
    pub fn load_on(dir: &Path, threads: usize, providers: &[Provider]) -> Result<Model, String> {
        Model::load_split_if(dir, threads, providers, 1, |_| false)
    }

    /// [`Model::load_on`], but when `split` is more than one, the model runs on the CPU and
    /// `guess` says of model.onnx's bytes that it will be scored one pair per call, it is
    /// loaded straight into `split` single-threaded sessions (as [`Model::split_sessions`]
    /// makes), so the session of `threads` threads is never built only to be replaced.
    pub fn load_split_if(
        dir: &Path,
        threads: usize,
        providers: &[Provider],
        split: usize,
        guess: fn(&[u8]) -> bool,
    ) -> Result<Model, String> {
        if !dir.is_dir() {
            return Err(model_err(
                dir,
                "is not a directory (it should hold model.onnx, tokenizer.json and config.json)",
            ));
        }
        // ONNX Runtime is loaded and started (about 20 ms) while the model is read and hashed;
        // a failure to load it is reported by the session build that needs it
        let (bytes, hash, config) = std::thread::scope(|scope| {
            scope.spawn(|| runtime().is_ok());
            let bytes = std::fs::read(dir.join("model.onnx"))
                .map_err(|e| model_err(dir, format!("cannot read model.onnx: {e}")))?;
            let hash = crate::text::hash::sha256_hex(&bytes, 8);
            Ok::<_, String>((bytes, hash, ConfigJson::read(dir)?))
        })?;
        let on_cpu = providers.iter().all(|p| *p == Provider::Cpu);
        let split = if split > 1 && on_cpu && guess(&bytes) {
            split
        } else {
            1
        };
        // the tokenizer is read while the sessions are built (each build is mostly one
        // thread's graph optimisation)
        let (tokenizer, built) = std::thread::scope(|scope| {
            let tok = scope.spawn(|| tokenizer(dir, config.pad_token_id));
            let extra = spawn_single_threaded(scope, dir, &bytes, split - 1);
            let first = session_on(dir, if split > 1 { 1 } else { threads }, providers, &bytes);
            let mut built = vec![first];
            built.extend(
                join_builds(dir, extra)
                    .into_iter()
                    .map(|b| b.map(|s| (s, Vec::new()))),
            );
            let tok = tok
                .join()
                .unwrap_or_else(|_| Err(model_err(dir, "reading the tokenizer panicked")));
            (tok, built)
        });
        let tokenizer = tokenizer?;
        let mut sessions = Vec::with_capacity(built.len());
        let mut on = Vec::new();
        for (i, b) in built.into_iter().enumerate() {
            let (session, names) = b?;
            if i == 0 {
                on = names;
            }
            sessions.push(session);
        }
        let session = &sessions[0];
        let port = |name: &str, ty: &ort::value::ValueType| Port {
            name: name.to_string(),
            description: format!("{ty}"),
        };
        let inputs = session
            .inputs()
            .iter()
            .map(|i| port(i.name(), i.dtype()))
            .collect();
        let outputs = session
            .outputs()
            .iter()
            .map(|o| port(o.name(), o.dtype()))
            .collect();
        let output_width = session.outputs().first().and_then(|o| match o.dtype() {
            ort::value::ValueType::Tensor { shape, .. } if shape.len() == 2 && shape[1] > 0 => {
                Some(shape[1] as usize)
            }
            _ => None,
        });
        Ok(Model {
            dir: dir.to_path_buf(),
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            tokenizer,
            labels: config.labels,
            max_len: config.max_len,
            family: config.family,
            providers: on,
            output_width,
            hash,
            inputs,
            outputs,
        })
    }

    /// Token count of a text or a (premise, claim) pair, special tokens included.
    pub fn token_len(&self, first: &str, second: Option<&str>) -> Result<usize, String> {
        let enc = match second {
            Some(s) => self.tokenizer.encode((first, s), true),
            None => self.tokenizer.encode(first, true),
        };
        enc.map(|e| e.len()).map_err(|e| format!("tokenizer: {e}"))
    }

    /// A text read alone, without special tokens, to be joined into pairs by
    /// [`Model::encode_joined`]. A pair's length is its two texts' plus
    /// [`Model::pair_specials`]: the tokenizer reads each text of a pair on its own and only then
    /// joins them with the special tokens (no truncation), so a window or a claim is read once
    /// for every pair it is in.
    pub fn read_alone(&self, text: &str) -> Result<tokenizers::Encoding, String> {
        self.tokenizer
            .encode(text, false)
            .map_err(|e| format!("tokenizer: {e}"))
    }

    /// The special tokens the tokenizer adds around a pair.
    pub fn pair_specials(&self) -> usize {
        use tokenizers::PostProcessor;
        self.tokenizer
            .get_post_processor()
            .map_or(0, |p| p.added_tokens(true))
    }

    /// [`Model::encode`] of pairs from their texts read alone: the same arrays, as the
    /// tokenizer makes a pair the same way (the second text's type 1, then the special tokens,
    /// then padding to the longest).
    pub fn encode_joined(
        &self,
        batch: &[(&tokenizers::Encoding, &tokenizers::Encoding)],
    ) -> Result<Encoded, String> {
        let mut encodings = batch
            .iter()
            .map(|(a, b)| {
                let mut b = (*b).clone();
                b.set_type_ids(vec![1; b.len()]);
                self.tokenizer.post_process((*a).clone(), Some(b), true)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("tokenizer: {e}"))?;
        if let Some(p) = self.tokenizer.get_padding() {
            tokenizers::utils::padding::pad_encodings(&mut encodings, p)
                .map_err(|e| format!("tokenizer: {e}"))?;
        }
        Ok(arrays(&encodings))
    }

    /// Tokenises a batch, padded to its longest member: (input_ids, attention_mask,
    /// token_type_ids).
    pub fn encode(&self, batch: &[(&str, Option<&str>)]) -> Result<Encoded, String> {
        let encodings = if batch.iter().all(|(_, s)| s.is_some()) {
            self.tokenizer.encode_batch(
                batch
                    .iter()
                    .map(|(a, b)| (*a, b.unwrap_or("")))
                    .collect::<Vec<_>>(),
                true,
            )
        } else {
            self.tokenizer
                .encode_batch(batch.iter().map(|(a, _)| *a).collect::<Vec<_>>(), true)
        }
        .map_err(|e| format!("tokenizer: {e}"))?;
        Ok(arrays(&encodings))
    }

    /// How many sessions can run at once (see [`Model::split_sessions`]).
    pub fn sessions(&self) -> usize {
        self.sessions.len()
    }

    /// Replaces the sessions by one of `threads` intra-op threads: for a model loaded split
    /// ([`Model::load_split_if`]) whose every pair turned out to score the same alone and in a
    /// batch, so it is batched after all. The file is read again and must be the one loaded.
    pub fn join_sessions(&mut self, threads: usize) -> Result<(), String> {
        if self.sessions.len() <= 1 {
            return Ok(());
        }
        let bytes = self.bytes_again()?;
        let (session, _) = session_on(&self.dir, threads, &[], &bytes)?;
        self.sessions = vec![Mutex::new(session)];
        Ok(())
    }

    /// model.onnx read again, refused if it is not the file loaded.
    fn bytes_again(&self) -> Result<Vec<u8>, String> {
        let bytes = std::fs::read(self.dir.join("model.onnx"))
            .map_err(|e| model_err(&self.dir, format!("cannot read model.onnx: {e}")))?;
        if crate::text::hash::sha256_hex(&bytes, 8) != self.hash {
            return Err(model_err(
                &self.dir,
                "model.onnx changed while it was being loaded; run again",
            ));
        }
        Ok(bytes)
    }

    /// Replaces the session by `n` sessions of one intra-op thread each, for a model scored one
    /// pair per call: a single pair is too small a piece of work to share between threads
    /// (most of a two-thread call is spent handing work over), but `n` calls side by side keep
    /// `n` cores busy. Only on the CPU (an accelerator runs one call at a time anyway); the
    /// file is read again and must be the one loaded.
    pub fn split_sessions(&mut self, n: usize) -> Result<(), String> {
        // already split when loaded ([`Model::load_split_if`])
        if n <= 1 || self.sessions.len() == n || self.providers.iter().any(|p| p != "cpu") {
            return Ok(());
        }
        let bytes = self.bytes_again()?;
        // built side by side: each build is mostly one thread's graph optimisation
        let built = std::thread::scope(|scope| {
            join_builds(
                &self.dir,
                spawn_single_threaded(scope, &self.dir, &bytes, n),
            )
        });
        self.sessions = built
            .into_iter()
            .map(|s| s.map(Mutex::new))
            .collect::<Result<_, _>>()?;
        Ok(())
    }

    /// Runs pre-tokenised arrays (the bare-session benchmark uses this directly).
    pub fn run_arrays(
        &self,
        ids: &Array2<i64>,
        mask: &Array2<i64>,
        types: &Array2<i64>,
    ) -> Result<(Vec<usize>, Vec<f32>), String> {
        self.run_arrays_on(0, ids, mask, types)
    }

    /// [`Model::run_arrays`] on session `worker` (modulo the number of sessions).
    pub fn run_arrays_on(
        &self,
        worker: usize,
        ids: &Array2<i64>,
        mask: &Array2<i64>,
        types: &Array2<i64>,
    ) -> Result<(Vec<usize>, Vec<f32>), String> {
        let mut session = self.sessions[worker % self.sessions.len()]
            .lock()
            .map_err(|_| "model session poisoned".to_string())?;
        let mut feed: Vec<(String, TensorRef<'_, i64>)> = Vec::new();
        for input in session.inputs() {
            let arr = match input.name() {
                "input_ids" => ids,
                "attention_mask" => mask,
                "token_type_ids" => types,
                other => {
                    return Err(model_err(
                        &self.dir,
                        format!("unexpected model input `{other}`"),
                    ))
                }
            };
            let t = TensorRef::from_array_view(arr.view())
                .map_err(|e| model_err(&self.dir, format!("input tensor: {e}")))?;
            feed.push((input.name().to_string(), t));
        }
        let outputs = session
            .run(feed)
            .map_err(|e| model_err(&self.dir, format!("inference failed: {e}")))?;
        let (shape, data) = outputs[0]
            .try_extract_tensor::<f32>()
            .map_err(|e| model_err(&self.dir, format!("output is not f32: {e}")))?;
        Ok((shape.iter().map(|d| *d as usize).collect(), data.to_vec()))
    }
}
/// An output of the model named in a `labels:` mapping: its index, or its id2label name.
#[derive(Debug, Clone, PartialEq)]
pub enum LabelRef {
    Index(usize),
    Name(String),
}

impl<'de> serde::Deserialize<'de> for LabelRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::io::yaml::Value;
        use serde::de::Error;
        match Value::deserialize(d)? {
            Value::Number(n) => n.as_u64().map(|i| LabelRef::Index(i as usize)).ok_or_else(|| {
                D::Error::custom(format!(
                    "labels: {n} is not an output index (a whole number from 0) or a label name"
                ))
            }),
            Value::String(s) if !s.trim().is_empty() => Ok(LabelRef::Name(s)),
            other => Err(D::Error::custom(format!(
                "labels: {other:?} is not an output index (0, 1, ...) or a label name from config.json id2label"
            ))),
        }
    }
}

/// By hand, as its `Deserialize` is: an output index or a label name.
impl schemars::JsonSchema for LabelRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "LabelRef".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "an output index (0, 1, ...) or a label name from config.json id2label",
            "anyOf": [
                {"type": "integer", "minimum": 0},
                {"type": "string", "pattern": "\\S"}
            ]
        })
    }
}

impl std::fmt::Display for LabelRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelRef::Index(i) => write!(f, "{i}"),
            LabelRef::Name(n) => write!(f, "{n}"),
        }
    }
}

/// `labels:` in an nli checker's config: which output means supported and which contradicted,
/// overriding id2label. For a model with one output (a logit), `supported: 0` reads its sigmoid
/// as the probability of supported and `unsupported: 0` as the probability of unsupported.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "a labels mapping such as {supported: LABEL_1, contradicted: LABEL_0} (names or output indexes)"
)]
pub struct LabelMap {
    pub supported: Option<LabelRef>,
    pub unsupported: Option<LabelRef>,
    pub contradicted: Option<LabelRef>,
}
/// `kind: nli` and `kind: similarity` settings.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, schemars::JsonSchema)]
#[serde(
    deny_unknown_fields,
    expecting = "model checker settings: `model` (a folder) and optional `threshold`, `batch_size`, `threads`, `max_window_sentences`, `labels`, `template`, `providers`, `top_windows`"
)]
pub struct ModelConfig {
    /// A folder with model.onnx, tokenizer.json and config.json.
    pub model: std::path::PathBuf,
    pub threshold: Option<f64>,
    pub batch_size: Option<usize>,
    pub threads: Option<usize>,
    pub max_window_sentences: Option<usize>,
    /// `nli` only: which output means supported / contradicted (overrides id2label).
    pub labels: Option<LabelMap>,
    /// `nli` only: one input text from `{premise}` and `{claim}`.
    pub template: Option<String>,
    /// ONNX Runtime execution providers in order of preference, e.g. `[cuda, cpu]`.
    pub providers: Option<Vec<Provider>>,
    /// Score only the K windows per claim that share the most words with it.
    pub top_windows: Option<usize>,
}

/// The most intra-op threads a model checker may ask for.
pub const MAX_THREADS: usize = 256;
/// The largest batch a model checker may ask for.
pub const MAX_BATCH_SIZE: usize = 4096;

impl ModelConfig {
    /// The settings' own checks for `kind` (`nli` or `similarity`).
    pub fn validate(&self, kind: &str) -> Result<(), super::SettingsProblem> {
        use super::SettingsProblem as P;
        if kind == "similarity" && (self.labels.is_some() || self.template.is_some()) {
            return Err(P::new(
                "`labels` and `template` are settings of `kind: nli` (a similarity model has no labels and embeds each text alone)",
                "remove them, or use `kind: nli` for a classifier",
            ));
        }
        if let Some(t) = &self.template {
            if t.matches("{premise}").count() != 1 || t.matches("{claim}").count() != 1 {
                return Err(P::new(
                    format!("template {t:?} must contain `{{premise}}` and `{{claim}}` once each"),
                    "e.g. template: \"premise: {premise} hypothesis: {claim}\"",
                ));
            }
        }
        super::unit("threshold", self.threshold)?;
        super::positive("batch_size", self.batch_size, MAX_BATCH_SIZE)?;
        super::positive("threads", self.threads, MAX_THREADS)?;
        super::positive(
            "max_window_sentences",
            self.max_window_sentences,
            super::MAX_WINDOW_SENTENCES,
        )?;
        super::positive("top_windows", self.top_windows, super::MAX_WINDOW_SENTENCES)?;
        if self.model.as_os_str().is_empty() {
            return Err(P::new(
                "`model` is empty",
                "set `model:` to a folder holding model.onnx, tokenizer.json and config.json",
            ));
        }
        Ok(())
    }

    /// The settings for `kind` with every default filled in.
    pub fn settings(&self, kind: &str) -> ModelSettings {
        let d = ModelSettings::defaults(kind);
        ModelSettings {
            threshold: self.threshold.unwrap_or(d.threshold),
            batch_size: self.batch_size.unwrap_or(d.batch_size),
            threads: self.threads.unwrap_or(d.threads),
            max_window_sentences: self.max_window_sentences.unwrap_or(d.max_window_sentences),
            labels: self.labels.clone(),
            template: self.template.clone(),
            providers: self.providers.clone().unwrap_or_default(),
            top_windows: self.top_windows,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_provider_is_named_as_serde_names_it() {
        crate::model::case::assert_strum_names_are_serde_names::<super::Provider>();
    }

    #[test]
    fn the_first_python3_on_path_is_read_from_its_folders_only_when_it_is_a_virtual_environments() {
        let t = tempfile::tempdir().unwrap();
        let make = |name: &str, venv: bool| {
            let prefix = t.path().join(name);
            std::fs::create_dir_all(prefix.join("bin")).unwrap();
            std::fs::write(prefix.join("bin/python3"), "").unwrap();
            let capi = prefix.join("lib/python3.11/site-packages/onnxruntime/capi");
            std::fs::create_dir_all(&capi).unwrap();
            std::fs::write(capi.join("libonnxruntime.so.1.31.1"), "").unwrap();
            if venv {
                std::fs::write(prefix.join("pyvenv.cfg"), "home = /usr/bin\n").unwrap();
            }
            prefix
        };
        let (env, system, empty) = (
            make("env", true),
            make("system", false),
            t.path().join("none"),
        );
        std::fs::create_dir_all(&empty).unwrap();
        let path = |dirs: &[&std::path::Path]| std::env::join_paths(dirs).unwrap();
        // a folder without python3 is passed over; the first python3 decides
        let found = super::venv_python_in(&path(&[&empty, &env.join("bin"), &system.join("bin")]));
        assert_eq!(found.as_deref(), Some(env.as_path()));
        assert_eq!(
            found.and_then(|p| super::lib_in_prefix(&p)),
            Some(
                env.join("lib/python3.11/site-packages/onnxruntime/capi/libonnxruntime.so.1.31.1")
            )
        );
        // a python3 of no environment first: left to python3 itself to say where it looks
        assert_eq!(
            super::venv_python_in(&path(&[&system.join("bin"), &env.join("bin")])),
            None
        );
        assert_eq!(super::venv_python_in(&path(&[&empty])), None);
    }
}
