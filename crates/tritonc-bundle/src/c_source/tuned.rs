//! Tuned dispatch in generated C (`tritonc compile --emit c --tuned DIR`): for an
//! autotuned kernel whose tuning tables (`tritonc tune`, docs/tune.md) are given, a config
//! type, `KERNEL_tuned_config(key…)` — the config the tables chose for the actual key
//! values on the current device, by the dispatch rule of [`crate::tuned`] — and
//! `KERNEL_launch_config(config, grid, stream, …)`, which launches that config's most
//! specialized variant whose assumptions the arguments meet.
//!
//! The caller computes the grid from the returned config's meta-parameters, as a Triton
//! grid function does from `META`. Entries measured on code other than the variants
//! compiled here are left out, as every other launcher does; a table that cannot be
//! expressed in C (a key that is not an integer argument, a meta-parameter that is not a
//! number) gives no tuned functions and a note saying why.

use std::fmt::Write as _;

use super::{c_identifier, c_string_text, dispatch_chain, Variant};
use crate::tuned::{code_digest, TuneTable};
use crate::Bundle;

/// What the generated functions of one kernel hold.
pub(super) struct TunedKernel {
    kernel: String,
    /// The key's parameters: (C name of the launch parameter, Python name).
    key: Vec<String>,
    /// Meta-parameter fields of the config struct: (C field, Python name, C type).
    fields: Vec<(String, String, &'static str)>,
    configs: Vec<Config>,
    /// Per device model: its name and its usable entries (key values, winner).
    tables: Vec<(String, Vec<(Vec<i64>, usize)>)>,
}

struct Config {
    label: String,
    num_warps: u32,
    num_stages: u32,
    /// One C literal per field.
    values: Vec<String>,
    /// The kernel's variants of this config, most specialized first (indices into the
    /// module's variants).
    variants: Vec<usize>,
}

/// The tuned functions for `kernel`, whose variants (most specialized first) are `order`
/// and share one parameter list, from the `tables` of that kernel; `None` with a note
/// when there are none or they cannot be expressed in C.
pub(super) fn plan(
    kernel: &str,
    order: &[usize],
    variants: &[Variant],
    bundles: &[Bundle],
    tables: &[TuneTable],
    notes: &mut Vec<String>,
) -> Option<TunedKernel> {
    let python_name = &bundles[order[0]].meta.key.kernel;
    let mine: Vec<&TuneTable> = tables.iter().filter(|t| &t.kernel == python_name).collect();
    let first = mine.first()?;
    let refuse = |notes: &mut Vec<String>, why: String| {
        notes.push(format!(
            "no tuned dispatch generated for `{python_name}`: {why}"
        ));
        None
    };
    if let Some(t) = mine
        .iter()
        .find(|t| t.configs != first.configs || t.key != first.key)
    {
        return refuse(
            notes,
            format!(
                "its tables for `{}` and `{}` tune different configs or keys",
                first.device, t.device
            ),
        );
    }
    // The key: integer launch parameters, by their C names.
    let v0 = &variants[order[0]];
    let meta0 = &bundles[order[0]].meta;
    let mut key = Vec::new();
    for name in &first.key {
        let passed_int = meta0.params.iter().any(|p| {
            &p.name == name
                && matches!(&p.role, crate::ParamRole::Passed {
                    kind: crate::meta::PtxParamKind::Scalar { dtype, .. }, ..
                } if dtype.is_int())
        });
        // The launch parameter's C name, as `Variant::of` gave it.
        let pos = meta0.params.iter().position(|p| &p.name == name);
        let c = pos.and_then(|pos| {
            let plain = c_identifier(name);
            let renamed = format!("arg{pos}_{plain}");
            v0.params
                .iter()
                .map(|(_, n, _)| n)
                .find(|n| **n == plain || **n == renamed)
                .cloned()
        });
        match (passed_int, c) {
            (true, Some(c)) => key.push(c),
            _ => {
                return refuse(
                    notes,
                    format!("its key `{name}` is not an integer argument of the launch"),
                )
            }
        }
    }
    // The config struct's fields: every meta-parameter a config sets.
    let mut fields: Vec<(String, String, &'static str)> = Vec::new();
    let reserved = ["label", "num_warps", "num_stages"];
    for c in &first.configs {
        for (name, v) in &c.values {
            if fields.iter().any(|(_, n, _)| n == name) {
                continue;
            }
            let ty = if v.is_i64() || v.is_boolean() {
                "long long"
            } else if v.is_f64() {
                "double"
            } else {
                return refuse(
                    notes,
                    format!("its config value {name}={v} is not a number"),
                );
            };
            let mut field = c_identifier(name);
            if reserved.contains(&field.as_str()) {
                field = format!("meta_{field}");
            }
            fields.push((field, name.clone(), ty));
        }
    }
    let configs: Vec<Config> = first
        .configs
        .iter()
        .map(|c| Config {
            label: c.label.clone(),
            num_warps: c.num_warps,
            num_stages: c.num_stages,
            values: fields
                .iter()
                .map(|(_, name, ty)| match c.values.get(name) {
                    Some(serde_json::Value::Bool(b)) => (*b as u8).to_string(),
                    Some(v) if *ty == "double" => format!("{:?}", v.as_f64().unwrap_or(0.0)),
                    Some(v) => format!("{}LL", v.as_i64().unwrap_or(0)),
                    None => "0".to_string(),
                })
                .collect(),
            variants: order
                .iter()
                .copied()
                .filter(|&i| c.is_config_of(&bundles[i].meta))
                .collect(),
        })
        .collect();
    let digests: Vec<String> = order.iter().map(|&i| code_digest(&bundles[i])).collect();
    let mut out_tables = Vec::new();
    for t in &mine {
        let usable = t.usable(&digests);
        let dropped = t.entries.len() - usable.entries.len();
        if dropped > 0 {
            notes.push(format!(
                "`{python_name}` on {}: {dropped} of {} tuned entries were measured on other code than the variants compiled now, and are left out",
                t.device,
                t.entries.len()
            ));
        }
        let mut entries = Vec::new();
        for e in &usable.entries {
            let values: Option<Vec<i64>> = first
                .key
                .iter()
                .map(|k| e.key.get(k).and_then(|v| v.as_i64()))
                .collect();
            match values {
                Some(v) => entries.push((v, e.winner)),
                None => {
                    return refuse(
                        notes,
                        format!("an entry's key values {:?} are not integers", e.key),
                    )
                }
            }
        }
        out_tables.push((t.device.clone(), entries));
    }
    Some(TunedKernel {
        kernel: kernel.to_string(),
        key,
        fields,
        configs,
        tables: out_tables,
    })
}

impl TunedKernel {
    fn config_type(&self, m: &str) -> String {
        format!("{m}_{}_config", self.kernel)
    }

    fn chooser_prototype(&self, m: &str) -> String {
        let keys: Vec<String> = self.key.iter().map(|k| format!("long long {k}")).collect();
        format!(
            "const {} *{}_tuned_config({})",
            self.config_type(m),
            self.kernel,
            keys.join(", ")
        )
    }

    fn launch_prototype(&self, m: &str, first: &Variant) -> String {
        let mut s = format!(
            "tritonc_status {}_launch_config(const {} *tritonc_config, tritonc_grid grid, void *stream",
            self.kernel,
            self.config_type(m)
        );
        for (ty, name, _) in &first.params {
            if !name.starts_with("tritonc_hidden") {
                let _ = write!(s, ", {ty} {name}");
            }
        }
        s.push(')');
        s
    }

    /// The declarations for the header.
    pub(super) fn header(&self, m: &str, first: &Variant) -> String {
        let mut s = String::new();
        let ty = self.config_type(m);
        let _ = writeln!(
            s,
            "/* `{k}`'s autotune configs, in the decorator's order. */\ntypedef struct {ty} {{\n    \
             const char *label;\n    int num_warps, num_stages;",
            k = self.kernel
        );
        for (field, name, cty) in &self.fields {
            let _ = writeln!(s, "    {cty} {field}; /* {} */", c_string_text(name));
        }
        let tuned: Vec<String> = self
            .tables
            .iter()
            .map(|(d, e)| format!("{} ({} key values)", c_string_text(d), e.len()))
            .collect();
        let _ = writeln!(
            s,
            "}} {ty};\n\n\
             /* The config `tritonc tune` chose for these key values on the calling thread's\n \
             * device (its current context's; none: device 0): the winner tuned for exactly\n \
             * these values; else the winner of the nearest tuned ones (the smallest sum of\n \
             * |log2(actual) - log2(tuned)|, ties to the entry tuned first); else, as on a\n \
             * device model that was not tuned, the first config. NULL only when the driver\n \
             * or the device cannot be reached ({m}_last_error() says why).\n \
             * Tuned on: {}. */\n{};\n\n\
             /* Launches `tritonc_config` (from {k}_tuned_config): the most specialized of\n \
             * its variants whose assumptions the arguments meet. Compute `grid` from the\n \
             * config's meta-parameters, as a Triton grid function does from META. */\n{};\n",
            if tuned.is_empty() {
                "nothing".to_string()
            } else {
                tuned.join(", ")
            },
            self.chooser_prototype(m),
            self.launch_prototype(m, first),
            k = self.kernel,
        );
        s
    }

    /// The definitions for the source file.
    pub(super) fn source(&self, m: &str, variants: &[Variant]) -> String {
        let mut s = String::new();
        let k = &self.kernel;
        let ty = self.config_type(m);
        let nkeys = self.key.len().max(1);
        let _ = writeln!(
            s,
            "\nstatic const {ty} tritonc_configs_{k}_{m}[{}] = {{",
            self.configs.len()
        );
        for c in &self.configs {
            let mut vals = vec![
                format!("\"{}\"", c_string_text(&c.label).replace("%%", "%")),
                c.num_warps.to_string(),
                c.num_stages.to_string(),
            ];
            vals.extend(c.values.iter().cloned());
            let _ = writeln!(s, "    {{{}}},", vals.join(", "));
        }
        s.push_str("};\n");
        let _ = writeln!(
            s,
            "struct tritonc_entry_{k}_{m} {{ long long key[{nkeys}]; int winner; }};"
        );
        for (t, (_, entries)) in self.tables.iter().enumerate() {
            let _ = writeln!(
                s,
                "static const struct tritonc_entry_{k}_{m} tritonc_entries{t}_{k}_{m}[{}] = {{",
                entries.len().max(1)
            );
            if entries.is_empty() {
                s.push_str("    {{0}, -1},\n");
            }
            for (values, winner) in entries {
                let v: Vec<String> = values.iter().map(|x| format!("{x}LL")).collect();
                let _ = writeln!(s, "    {{{{{}}}, {winner}}},", v.join(", "));
            }
            s.push_str("};\n");
        }
        let _ = writeln!(
            s,
            "static const struct {{ const char *device; const struct tritonc_entry_{k}_{m} *entries; int count; }}\n    \
             tritonc_tables_{k}_{m}[{}] = {{",
            self.tables.len().max(1)
        );
        if self.tables.is_empty() {
            let _ = writeln!(s, "    {{\"\", NULL, 0}},");
        }
        for (t, (device, entries)) in self.tables.iter().enumerate() {
            let _ = writeln!(
                s,
                "    {{\"{}\", tritonc_entries{t}_{k}_{m}, {}}},",
                c_string_text(device),
                entries.len()
            );
        }
        s.push_str("};\n");
        let keys: Vec<&str> = self.key.iter().map(String::as_str).collect();
        let body = CHOOSER
            .replace("PROTOTYPE", &self.chooser_prototype(m))
            .replace("NKEYS_REAL", &self.key.len().to_string())
            .replace("NKEYS", &nkeys.to_string())
            .replace("NTABLES", &self.tables.len().to_string())
            .replace(
                "ACTUAL",
                &if keys.is_empty() {
                    "0".to_string()
                } else {
                    keys.join(", ")
                },
            )
            .replace("KERNEL", k)
            .replace("MODULE", m);
        s.push_str(&body);
        // The launch: the config's variants, most specialized first.
        let first = &variants[self
            .configs
            .iter()
            .find_map(|c| c.variants.first().copied())
            .unwrap_or(0)];
        let _ = writeln!(
            s,
            "\n{} {{\n    \
             ptrdiff_t tritonc_index = tritonc_config - tritonc_configs_{k}_{m};\n    \
             tritonc_error_{m}[0] = '\\0';\n    \
             if (tritonc_config == NULL || tritonc_index < 0 || tritonc_index >= {n})\n        \
             return tritonc_fail_{m}(TRITONC_INVALID_ARGUMENT, \"{k}_launch_config: not one of {k}'s configs (use {k}_tuned_config)\");\n    \
             switch (tritonc_index) {{",
            self.launch_prototype(m, first),
            n = self.configs.len()
        );
        for (ci, c) in self.configs.iter().enumerate() {
            let _ = writeln!(s, "    case {ci}:");
            if c.variants.is_empty() {
                let _ = writeln!(
                    s,
                    "        return tritonc_fail_{m}(TRITONC_INVALID_ARGUMENT, \"{k}: config {ci} ({}) has no compiled variant\");",
                    c_string_text(&c.label)
                );
                continue;
            }
            s.push_str(&dispatch_chain(variants, &c.variants, first, "        "));
        }
        let _ = writeln!(
            s,
            "    default:\n        return TRITONC_INVALID_ARGUMENT;\n    }}\n}}"
        );
        s
    }
}

/// `KERNEL_tuned_config`: the dispatch rule over the tables of the calling thread's device.
const CHOOSER: &str = r#"
PROTOTYPE {
    long long tritonc_actual[NKEYS] = {ACTUAL};
    char tritonc_name[256];
    tritonc_cu_device tritonc_device = 0;
    tritonc_cu_result tritonc_r;
    int tritonc_t, tritonc_e, tritonc_i, tritonc_best = -1;
    double tritonc_best_distance = 0.0;
    tritonc_error_MODULE[0] = '\0';
    if (tritonc_context_MODULE("KERNEL_tuned_config", NULL, &tritonc_device) != TRITONC_SUCCESS)
        return NULL;
    tritonc_r = tritonc_cu_MODULE.cuDeviceGetName(tritonc_name, (int)sizeof tritonc_name, tritonc_device);
    if (tritonc_r != TRITONC_CUDA_SUCCESS) {
        tritonc_fail_MODULE(TRITONC_CUDA_ERROR, "KERNEL_tuned_config: cuDeviceGetName failed with %s",
                            tritonc_cu_name_MODULE(tritonc_r));
        return NULL;
    }
    (void)tritonc_actual;
    for (tritonc_t = 0; tritonc_t < NTABLES; tritonc_t++) {
        const struct tritonc_entry_KERNEL_MODULE *tritonc_entries = tritonc_tables_KERNEL_MODULE[tritonc_t].entries;
        int tritonc_count = tritonc_tables_KERNEL_MODULE[tritonc_t].count;
        if (strcmp(tritonc_tables_KERNEL_MODULE[tritonc_t].device, tritonc_name) != 0)
            continue;
        /* 1. the entry tuned for exactly these values */
        for (tritonc_e = 0; tritonc_e < tritonc_count; tritonc_e++) {
            int tritonc_same = 1;
            for (tritonc_i = 0; tritonc_i < NKEYS_REAL; tritonc_i++)
                tritonc_same = tritonc_same && tritonc_entries[tritonc_e].key[tritonc_i] == tritonc_actual[tritonc_i];
            if (tritonc_same)
                return &tritonc_configs_KERNEL_MODULE[tritonc_entries[tritonc_e].winner];
        }
        /* 2. the nearest, by the sum of |log2(actual) - log2(tuned)| (ties: the first) */
        for (tritonc_e = 0; tritonc_e < tritonc_count; tritonc_e++) {
            double tritonc_d = 0.0;
            for (tritonc_i = 0; tritonc_i < NKEYS_REAL; tritonc_i++) {
                double tritonc_a = tritonc_log2_MODULE(tritonc_actual[tritonc_i]) -
                           tritonc_log2_MODULE(tritonc_entries[tritonc_e].key[tritonc_i]);
                tritonc_d += tritonc_a < 0 ? -tritonc_a : tritonc_a;
            }
            if (tritonc_best < 0 || tritonc_d < tritonc_best_distance) {
                tritonc_best = tritonc_entries[tritonc_e].winner;
                tritonc_best_distance = tritonc_d;
            }
        }
        break;
    }
    /* 3. otherwise the first config */
    return &tritonc_configs_KERNEL_MODULE[tritonc_best < 0 ? 0 : tritonc_best];
}
"#;

/// `log2(max(|v|, 1))` without the C math library (so generated code links without
/// `-lm`): the exponent by halving, exact, then the mantissa's logarithm by the series
/// of `2·atanh((x−1)/(x+1))`, accurate to a few ulps.
pub(super) const LOG2: &str = r#"
static double tritonc_log2_MODULE(long long v) {
    double x = v < 0 ? -(double)v : (double)v, y, y2, term, sum = 0.0;
    int e = 0, k;
    if (x <= 1.0)
        return 0.0;
    while (x >= 2.0) {
        x /= 2.0;
        e++;
    }
    y = (x - 1.0) / (x + 1.0);
    y2 = y * y;
    term = y;
    for (k = 1; k < 80; k += 2) {
        sum += term / k;
        term *= y2;
    }
    return e + 2.0 * sum / 0.693147180559945309417232121458176568;
}
"#;
