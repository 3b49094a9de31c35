//! A stand-in for the GitHub runner, enough to run `action.yml`'s composite steps locally:
//! `${{ … }}` expressions of the forms the action uses (inputs, step outputs, event fields,
//! `==`/`!=` with a literal, `&&`), each `run:` step in `bash --noprofile --norc -eo pipefail`
//! as the runner does with `shell: bash`, fresh `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` files
//! per step, `GITHUB_PATH` applied to later steps, and `uses:` steps recorded (with their
//! evaluated `if:` and `with:`) instead of run. An expression outside those forms fails the
//! test, so the harness cannot silently give a wrong value.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::fixture::root;

/// `action.yml` as JSON (loaded with driftlint's own YAML loader).
pub fn action() -> Value {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let stream = driftlint_yaml::parse_stream(&text);
    assert!(stream.error.is_none(), "action.yml: {:?}", stream.error);
    assert_eq!(stream.documents.len(), 1);
    stream.documents[0].root.to_json()
}

/// The steps of `action.yml`.
pub fn steps(action: &Value) -> &Vec<Value> {
    action["runs"]["steps"].as_array().expect("runs.steps is a list")
}

/// One step as it went.
#[derive(Debug, Default)]
pub struct StepRun {
    pub id: String,
    /// Whether its `if:` held (and so it ran or, for `uses:`, would have run).
    pub ran: bool,
    /// `uses:` of an action step (not run here).
    pub uses: Option<String>,
    /// Evaluated `with:` of an action step.
    pub with: BTreeMap<String, String>,
    /// Evaluated `continue-on-error`.
    pub continue_on_error: bool,
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub outputs: BTreeMap<String, String>,
}

/// A whole run of the action.
#[derive(Debug)]
pub struct ActionRun {
    pub steps: Vec<StepRun>,
    /// Everything the steps wrote to their step summaries, in order.
    pub summary: String,
    /// The exit code of the step that failed the action, 0 when none did.
    pub code: i32,
}

impl ActionRun {
    pub fn step(&self, id: &str) -> &StepRun {
        self.steps.iter().find(|s| s.id == id).unwrap_or_else(|| panic!("no step `{id}` in {:#?}", self.steps))
    }
}

/// The fake runner: workspace, temp and home directories, event, inputs, extra environment.
pub struct Runner {
    pub workspace: PathBuf,
    pub temp: PathBuf,
    pub home: PathBuf,
    pub event_name: String,
    pub event: Value,
    pub repository: String,
    pub actor: String,
    pub inputs: BTreeMap<String, String>,
    /// Directories put first on PATH (e.g. a stub `cargo`).
    pub path: Vec<PathBuf>,
    /// More runner environment (e.g. `GITHUB_ACTION_REF`), before each step's `env:`.
    pub env: BTreeMap<String, String>,
    /// Where the action's files are (`GITHUB_ACTION_PATH`): this repository, or a copy.
    pub action_path: PathBuf,
}

impl Runner {
    /// A runner for `workspace` with its temp and home directories under `scratch`, on a
    /// `push` event of `owner/repo`.
    pub fn new(workspace: &Path, scratch: &Path) -> Runner {
        let temp = scratch.join("runner-temp");
        let home = scratch.join("home");
        std::fs::create_dir_all(&temp).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Runner {
            workspace: workspace.to_path_buf(),
            temp,
            home,
            event_name: "push".into(),
            event: serde_json::json!({}),
            repository: "owner/repo".into(),
            actor: "someone".into(),
            inputs: BTreeMap::new(),
            path: Vec::new(),
            env: BTreeMap::new(),
            action_path: root(),
        }
    }

    /// A `pull_request` event from `head_repo` onto base commit `base_sha`.
    pub fn pull_request(&mut self, base_sha: &str, head_repo: &str) {
        self.event_name = "pull_request".into();
        self.event = serde_json::json!({
            "pull_request": {
                "base": { "sha": base_sha, "ref": "main", "repo": { "full_name": self.repository } },
                "head": { "repo": { "full_name": head_repo } },
            }
        });
    }

    pub fn input(&mut self, name: &str, value: &str) -> &mut Runner {
        self.inputs.insert(name.into(), value.into());
        self
    }

    /// Runs every step of `action.yml` as the runner would.
    pub fn run(&self) -> ActionRun {
        let action = action();
        let mut done: Vec<StepRun> = Vec::new();
        let mut summary = String::new();
        let mut path_additions: Vec<String> = Vec::new();
        let mut failed = 0;
        for (n, step) in steps(&action).iter().enumerate() {
            let id = step["id"].as_str().unwrap_or_else(|| panic!("step {n} has no id")).to_string();
            let ctx = Context { runner: self, action: &action, done: &done };
            let condition = step.get("if").and_then(Value::as_str).map(|c| ctx.eval(unwrap_expr(c)));
            let mut run =
                StepRun { id, ran: failed == 0 && condition.is_none_or(|c| c == "true"), ..StepRun::default() };
            run.continue_on_error = step.get("continue-on-error").is_some_and(|c| match c {
                Value::Bool(b) => *b,
                Value::String(s) => ctx.template(s) == "true",
                _ => panic!("continue-on-error: {c}"),
            });
            if let Some(uses) = step.get("uses").and_then(Value::as_str) {
                run.uses = Some(uses.to_string());
                if let Some(with) = step.get("with").and_then(Value::as_object) {
                    for (k, v) in with {
                        run.with.insert(k.clone(), ctx.template(v.as_str().expect("with: values are strings")));
                    }
                }
            } else if run.ran {
                let env: BTreeMap<String, String> = step
                    .get("env")
                    .and_then(Value::as_object)
                    .map(|m| m.iter().map(|(k, v)| (k.clone(), ctx.template(v.as_str().unwrap()))).collect())
                    .unwrap_or_default();
                let script = step["run"].as_str().expect("a step has run: or uses:");
                assert_eq!(step["shell"], "bash", "step `{}` runs in bash", run.id);
                self.run_shell(&mut run, script, &env, &path_additions, &mut summary);
                let github_path = self.temp.join(format!("path-{}", run.id));
                if let Ok(text) = std::fs::read_to_string(&github_path) {
                    path_additions.extend(text.lines().map(String::from));
                }
                if run.code != 0 && !run.continue_on_error {
                    failed = run.code;
                }
            }
            done.push(run);
        }
        ActionRun { steps: done, summary, code: failed }
    }

    fn run_shell(
        &self,
        run: &mut StepRun,
        script: &str,
        env: &BTreeMap<String, String>,
        path_additions: &[String],
        summary: &mut String,
    ) {
        let file = self.temp.join(format!("step-{}.sh", run.id));
        let output = self.temp.join(format!("output-{}", run.id));
        let step_summary = self.temp.join(format!("summary-{}", run.id));
        let github_path = self.temp.join(format!("path-{}", run.id));
        std::fs::write(&file, script).unwrap();
        std::fs::write(&output, "").unwrap();
        std::fs::write(&step_summary, "").unwrap();
        std::fs::write(&github_path, "").unwrap();
        let mut path: Vec<PathBuf> = path_additions.iter().rev().map(PathBuf::from).collect();
        path.extend(self.path.iter().cloned());
        path.extend(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()));
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&file)
            .current_dir(&self.workspace)
            .env_clear()
            .env("PATH", std::env::join_paths(path).unwrap())
            .env("HOME", &self.home)
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION_PATH", &self.action_path)
            .env("GITHUB_WORKSPACE", &self.workspace)
            .env("GITHUB_EVENT_NAME", &self.event_name)
            .env("GITHUB_REPOSITORY", &self.repository)
            .env("GITHUB_ACTOR", &self.actor)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &step_summary)
            .env("GITHUB_PATH", &github_path)
            .env("RUNNER_TEMP", &self.temp)
            .env("RUNNER_OS", "Linux")
            .env("RUNNER_ARCH", "X64")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .envs(&self.env)
            .envs(env)
            .output()
            .expect("bash runs");
        run.code = out.status.code().unwrap_or(-1);
        run.stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        run.stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        run.outputs = parse_outputs(&std::fs::read_to_string(&output).unwrap());
        summary.push_str(&std::fs::read_to_string(&step_summary).unwrap());
    }
}

/// `name=value` lines and `name<<DELIMITER` blocks of a `GITHUB_OUTPUT` file; a later value
/// replaces an earlier one, as on the runner.
pub fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let value: Vec<&str> = lines.by_ref().take_while(|l| *l != delimiter).collect();
            map.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            map.insert(name.to_string(), value.to_string());
        } else {
            panic!("malformed GITHUB_OUTPUT line `{line}`");
        }
    }
    map
}

/// The inside of `${{ … }}` when the whole text is one, else the text (an `if:` may be
/// written either way).
fn unwrap_expr(text: &str) -> &str {
    let t = text.trim();
    match t.strip_prefix("${{").and_then(|r| r.strip_suffix("}}")) {
        Some(inner) if !inner.contains("${{") => inner.trim(),
        _ => t,
    }
}

struct Context<'a> {
    runner: &'a Runner,
    action: &'a Value,
    done: &'a [StepRun],
}

impl Context<'_> {
    /// A string with `${{ … }}` expressions replaced by their values.
    fn template(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(start) = rest.find("${{") {
            out.push_str(&rest[..start]);
            let end = rest[start..].find("}}").unwrap_or_else(|| panic!("unclosed expression in `{text}`")) + start;
            out.push_str(&self.eval(rest[start + 3..end].trim()));
            rest = &rest[end + 2..];
        }
        out.push_str(rest);
        out
    }

    /// `A && B`, `X == 'lit'`, `X != 'lit'`, or a context path.
    fn eval(&self, expr: &str) -> String {
        if expr.contains("&&") {
            let all = expr.split("&&").all(|term| self.eval(term.trim()) == "true");
            return all.to_string();
        }
        for (op, equal) in [("==", true), ("!=", false)] {
            if let Some((left, right)) = expr.split_once(op) {
                let literal = right.trim().strip_prefix('\'').and_then(|r| r.strip_suffix('\'')).unwrap_or_else(|| {
                    panic!("the harness compares with a quoted literal only: `{expr}`");
                });
                return ((self.lookup(left.trim()) == literal) == equal).to_string();
            }
        }
        self.lookup(expr)
    }

    fn lookup(&self, path: &str) -> String {
        let parts: Vec<&str> = path.split('.').collect();
        match parts.as_slice() {
            ["inputs", name] => {
                let declared = &self.action["inputs"][*name];
                assert!(declared.is_object(), "`{path}`: no input `{name}` in action.yml");
                self.runner
                    .inputs
                    .get(*name)
                    .cloned()
                    .unwrap_or_else(|| declared["default"].as_str().unwrap_or("").to_string())
            }
            ["steps", id, "outputs", name] => {
                let step = self
                    .done
                    .iter()
                    .find(|s| s.id == *id)
                    .unwrap_or_else(|| panic!("`{path}`: no earlier step `{id}`"));
                step.outputs.get(*name).cloned().unwrap_or_default()
            }
            ["github", "event", rest @ ..] => {
                let mut v = &self.runner.event;
                for key in rest {
                    v = &v[*key];
                }
                match v {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => other.to_string(),
                }
            }
            ["github", "repository"] => self.runner.repository.clone(),
            ["github", "event_name"] => self.runner.event_name.clone(),
            _ => panic!("the test harness does not know the expression `{path}`"),
        }
    }
}
