//! The commands that apply text rules to lines on stdin: `presets`, `filter` and `qgen`.

use std::path::PathBuf;

use altflow::config::Pipeline;

use super::answer_json_lines;

/// `altflow filter`.
#[derive(clap::Args)]
pub struct FilterArgs {
    /// Preset: cc3m, cc12m, alt200m or lait (default: the pipeline's, else cc12m).
    #[arg(long)]
    preset: Option<altflow::filter::Preset>,
    /// Pipeline file whose [filter] overrides apply.
    #[arg(long)]
    pipeline: Option<PathBuf>,
}

/// `altflow qgen`.
#[derive(clap::Args)]
pub struct QgenArgs {
    /// Pipeline file whose `[qgen]` table to use.
    #[arg(long)]
    pipeline: Option<PathBuf>,
    /// T5 question-generation checkpoint (Hugging Face layout); rules when absent.
    #[arg(long)]
    qg_model: Option<PathBuf>,
    /// T5 question-answering checkpoint for the round trip; the lexical reader when absent.
    #[arg(long)]
    qa_model: Option<PathBuf>,
    /// The learned description gate's model (`qgen.gate_model`): the one compiled in when absent.
    #[arg(long)]
    gate_model: Option<PathBuf>,
    /// Print, instead of Q/A, what the description gate sees of each caption: the rules'
    /// verdict, the learned model's features and score (`scripts/train_gate.py` trains on them).
    #[arg(long)]
    gate_features: bool,
}

/// `altflow qgen`: questions and answers per caption on stdin.
pub fn qgen(args: QgenArgs) -> anyhow::Result<()> {
    let mut config = match &args.pipeline {
        Some(path) => Pipeline::load(path)?.qgen,
        None => altflow::config::QgenConfig::default(),
    };
    if args.qg_model.is_some() {
        config.qg_model = args.qg_model;
    }
    if args.qa_model.is_some() {
        config.qa_model = args.qa_model;
    }
    if args.gate_model.is_some() {
        config.gate_model = args.gate_model;
    }
    if args.gate_features {
        let model = altflow::qgen::gate::GateModel::configured(config.gate_model.as_deref())?;
        return answer_json_lines("text", |text, _| gate_features(text, &model));
    }
    let mut generator = altflow::qgen::Generator::from_config(&config)?;
    answer_json_lines("text", |text, _| {
        match generator.generate_batch(&[text.to_string()]) {
            Ok(mut outcomes) => {
                let outcome = outcomes.remove(0);
                match outcome.not_description {
                    None => serde_json::json!({"qa": outcome.qa}),
                    Some(why) => {
                        serde_json::json!({"qa": outcome.qa, "not_description": why.as_str()})
                    }
                }
            }
            Err(e) => serde_json::json!({"error": e.to_string()}),
        }
    })
}

/// The description gate's view of one caption: the rules' verdict (before the learned model's),
/// and the model's features (of the text the rules read, parsed) and score.
fn gate_features(caption: &str, model: &altflow::qgen::gate::GateModel) -> serde_json::Value {
    use altflow::qgen::{caption, gate, parse};
    let reading = caption::read(caption);
    let parsed = parse::parse(&reading.text);
    let rules = caption::rules_verdict(reading.not_description, &parsed);
    serde_json::json!({
        "rules": rules.map(|r| r.as_str()),
        "features": gate::features(caption, &parsed),
        "score": model.score(caption, &parsed),
    })
}

/// `altflow presets`: the presets side by side, with their sources.
pub fn presets() {
    use altflow::filter::{Preset, Rules, presets::SOURCES};
    let tables: Vec<toml::Table> = Preset::ALL
        .iter()
        .map(|p| toml::Table::try_from(Rules::of(*p)).expect("rules serialise"))
        .collect();
    let show = |v: &toml::Value| match v {
        toml::Value::Array(a) if a.len() > 3 => format!("[{} entries]", a.len()),
        toml::Value::String(s) if s.is_empty() => "\"\"".to_string(),
        other => other.to_string(),
    };
    println!(
        "{:<24}{:<22}{:<22}{:<22}{:<22}",
        "rule", "cc3m", "cc12m", "alt200m", "lait"
    );
    for (field, _) in SOURCES {
        print!("{field:<24}");
        for table in &tables {
            print!("{:<22}", show(&table[*field]));
        }
        println!();
    }
    println!("\nwhere each value comes from (seed file number and section; altflow: our choice):");
    for (field, sources) in SOURCES {
        println!("{field}");
        for (preset, source) in Preset::ALL.iter().zip(sources) {
            println!("  {:<8} {source}", preset.as_str());
        }
    }
}

/// `altflow filter`: a decision per candidate on stdin.
pub fn filter(args: FilterArgs) -> anyhow::Result<()> {
    let FilterArgs { preset, pipeline } = args;
    let mut config = match &pipeline {
        Some(path) => Pipeline::load(path)?.filter,
        None => altflow::config::FilterConfig::default(),
    };
    if let Some(preset) = preset {
        config.preset = preset;
    }
    let rules = config
        .rules()
        .map_err(|e| anyhow::anyhow!("[filter]: {e}"))?;
    let image_rules = rules.image();
    let dominant_only = rules.dominant_only;
    let mut filter = altflow::filter::TextFilter::new(rules);
    answer_json_lines("alt", |alt, input| {
        let decision = filter.check(alt);
        let mut reasons: Vec<&str> = decision.reasons.iter().map(|r| r.as_str()).collect();
        // Dominance as `altflow extract` prints it; an input without it is not held against.
        let dominant = input.get("dominant").and_then(|d| d.as_bool());
        if dominant_only && dominant == Some(false) {
            reasons.push(altflow::reason::Reason::NotDominant.as_str());
        }
        let size = |key: &str| input.get(key).and_then(|v| v.as_u64()).map(|v| v as u32);
        if let (Some(width), Some(height)) = (size("width"), size("height")) {
            let format = input.get("format").and_then(|f| f.as_str()).unwrap_or("");
            let format = if format == "jpg" { "jpeg" } else { format };
            let rules = altflow::filter::ImageRules {
                // An unknown format is not held against the image.
                formats: if format.is_empty() {
                    Vec::new()
                } else {
                    image_rules.formats.clone()
                },
                ..image_rules.clone()
            };
            if let Some((reason, _)) = rules.check(format, width, height) {
                reasons.push(reason.as_str());
            }
        }
        let decision_name = if reasons.is_empty() {
            "accept"
        } else {
            "reject"
        };
        serde_json::json!({"decision": decision_name, "reasons": reasons, "text": decision.text})
    })
}
