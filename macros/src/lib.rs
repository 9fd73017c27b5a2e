//! `include_model!`: the thin proc-macro shell over `tinyaot-compiler`.
//!
//! Parses the invocation, resolves and reads the model file, calls the
//! compiler, and turns its errors into one `compile_error!` at the right
//! span. No model logic lives here.

use proc_macro::TokenStream;
use proc_macro2::Span;
use quote::quote;
use std::path::PathBuf;
use syn::parse::{Parse, ParseStream};
use syn::{Expr, ExprBinary, ExprLit, Ident, Lit, LitStr, Token, Visibility};
use tinyaot_compiler::{Site, Target};

/// Compiles a `.tflite` model into a type that runs it with no interpreter.
///
/// ```ignore
/// tinyaot::include_model!(pub Kws = "models/kws.tflite");
/// tinyaot::include_model!(Kws = "models/kws.tflite", arena_limit = 48 * 1024);
/// tinyaot::include_model!(Kws = "models/kws.tflite", arena_limit = "48K", print_plan = true);
/// ```
///
/// - The path is relative to the crate's `CARGO_MANIFEST_DIR` (absolute
///   paths work too; a path found only next to the invoking source file is
///   taken from there); editing the file rebuilds the crate.
/// - `arena_limit`: bytes of RAM the arena may use, as an integer (`49152`,
///   `48 * 1024`) or a string with a unit (`"48K"`, `"48KiB"`, `"1M"`). A
///   plan over it is a compile error explaining the peak. Faster kernels
///   that need scratch are used as far as the limit allows (without one,
///   as far as TFLM's own arena for the model).
/// - `print_plan = true` prints the memory plan to the build log.
/// - `in_place = false` keeps every op's output apart from its input (by
///   default an op may write over the part of a dying input it has already
///   read, where the compiler proves it safe for that kernel).
/// - `keep_inputs = true` keeps the inputs' bytes intact through `invoke()`,
///   so it can run again on the same input without writing it anew. By
///   default, as in TFLM, an input's bytes are reused once its last reader
///   has run, and the input reads back clobbered after `invoke()`. The plan
///   report says what keeping them costs.
/// - `borrowed_inputs = true` leaves the inputs in your memory: `invoke`
///   takes them by reference (`model.invoke(&frame)`) and the ops read them
///   there, so the arena holds none of their bytes (no copy of a camera
///   frame or an audio buffer; with `arena_limit`, a tiled first stage reads
///   it band by band).
///
/// - `regions = [dtcm(".dtcm", 32K), sram(".sram2", 256K)]`: the arena
///   split over several RAMs, fastest first, each `name(".link_section",
///   budget)` (or `name(budget)` for the default section). Every buffer goes
///   to one region, the ones the ops move the most bytes through per byte
///   first into the fastest; each region is its own static arena in its
///   section, `new` takes one arena per region, and `NAME_SIZE` says each
///   region's bytes. Over a budget is a compile error naming the region.
///   Not with `arena_limit` (the budgets are the limit).
/// - `copy_weights = dtcm(8K)`: copies the weights of the ops that read
///   theirs the most times per byte (convolutions first), up to 8 KiB of
///   them, from flash into region `dtcm` whenever the model is made (`take`,
///   `new`, `new_in`); the ops read them there. Flash keeps them; the
///   region's budget holds the copies. Off by default.
///
/// - `cycle_limit`: the time budget in estimated Cortex-M4 cycles per
///   invoke (`12_000_000`, `12 * 1_000_000`, `"12M"`, `"800k"`), or
///   `latency_limit = "20ms @ 64MHz"` (a time at the core's clock: `s`,
///   `ms`, `us`; `MHz`, `kHz`, `Hz`). An estimate over it (`CYCLES_M4`,
///   the compiler's cost model of the chosen kernels) is a compile error
///   naming the slowest ops and what would help.
///
/// See the `tinyaot` crate docs for the generated API.
#[proc_macro]
pub fn include_model(input: TokenStream) -> TokenStream {
    let inv = syn::parse_macro_input!(input as Invocation);
    match expand(&inv) {
        Ok(ts) | Err(ts) => ts.into(),
    }
}

struct Invocation {
    vis: Visibility,
    name: Ident,
    path: LitStr,
    arena_limit: Option<(Expr, usize)>,
    /// `cycle_limit` or `latency_limit`, as cycles.
    cycle_limit: Option<(Expr, u64)>,
    /// `regions = [name(".section", bytes), ..]`, fastest first.
    regions: Option<(Expr, Vec<tinyaot_compiler::regions::Region>)>,
    /// `copy_weights = dtcm(8K)`: (region, bytes).
    copy_weights: Option<(Expr, (String, usize))>,
    print_plan: bool,
    in_place: bool,
    keep_inputs: bool,
    borrowed_inputs: bool,
}

impl Parse for Invocation {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let vis: Visibility = input.parse()?;
        let name: Ident = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "expected the name of the type to generate, e.g. `pub Kws = \"kws.tflite\"`")
        })?;
        input.parse::<Token![=]>()?;
        let path: LitStr = input.parse().map_err(|e| {
            syn::Error::new(e.span(), "expected the model path as a string literal: `Name = \"model.tflite\"`")
        })?;
        let mut arena_limit = None;
        let mut cycle_limit = None;
        let mut print_plan = None;
        let mut in_place = None;
        let mut keep_inputs = None;
        let mut borrowed_inputs = None;
        let mut regions = None;
        let mut copy_weights = None;
        while !input.is_empty() {
            input.parse::<Token![,]>()?;
            if input.is_empty() {
                break;
            }
            let key: Ident = input.parse()?;
            input.parse::<Token![=]>()?;
            let value: Expr = input.parse()?;
            match key.to_string().as_str() {
                "arena_limit" => {
                    if arena_limit.is_some() {
                        return Err(syn::Error::new(key.span(), "duplicate argument `arena_limit`"));
                    }
                    let bytes = parse_limit(&value)?;
                    arena_limit = Some((value, bytes));
                }
                "cycle_limit" | "latency_limit" => {
                    if cycle_limit.is_some() {
                        return Err(syn::Error::new(
                            key.span(),
                            "give one time budget: `cycle_limit` or `latency_limit`, once",
                        ));
                    }
                    let cycles = if key == "cycle_limit" { parse_cycles(&value)? } else { parse_latency(&value)? };
                    cycle_limit = Some((value, cycles));
                }
                "regions" => {
                    if regions.is_some() {
                        return Err(syn::Error::new(key.span(), "duplicate argument `regions`"));
                    }
                    let list = parse_regions(&value)?;
                    regions = Some((value, list));
                }
                "copy_weights" => {
                    if copy_weights.is_some() {
                        return Err(syn::Error::new(key.span(), "duplicate argument `copy_weights`"));
                    }
                    let what = parse_copy_weights(&value)?;
                    copy_weights = Some((value, what));
                }
                "print_plan" => flag(&key, &value, &mut print_plan)?,
                "in_place" => flag(&key, &value, &mut in_place)?,
                "keep_inputs" => flag(&key, &value, &mut keep_inputs)?,
                "borrowed_inputs" => flag(&key, &value, &mut borrowed_inputs)?,
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown argument `{other}`; expected `arena_limit`, `regions`, `copy_weights`, `cycle_limit`, `latency_limit`, `print_plan`, `in_place`, `keep_inputs` or `borrowed_inputs`"
                        ),
                    ));
                }
            }
        }
        if let (Some((limit, _)), Some(_)) = (&arena_limit, &regions) {
            return Err(syn::Error::new_spanned(
                limit,
                "give `arena_limit` or `regions`, not both: each region has its own budget",
            ));
        }
        if let Some((value, (region, _))) = &copy_weights {
            match &regions {
                Some((_, list)) if list.iter().any(|r| &r.name == region) => {}
                Some(_) => {
                    return Err(syn::Error::new_spanned(value, format!("`{region}` is not one of the `regions`")));
                }
                None => {
                    return Err(syn::Error::new_spanned(
                        value,
                        "`copy_weights` copies into one of the `regions`: give `regions` too",
                    ));
                }
            }
        }
        Ok(Invocation {
            vis,
            name,
            path,
            arena_limit,
            cycle_limit,
            regions,
            copy_weights,
            print_plan: print_plan.unwrap_or(false),
            in_place: in_place.unwrap_or(true),
            keep_inputs: keep_inputs.unwrap_or(false),
            borrowed_inputs: borrowed_inputs.unwrap_or(false),
        })
    }
}

/// A `key = true/false` argument, given at most once.
fn flag(key: &Ident, value: &Expr, slot: &mut Option<bool>) -> syn::Result<()> {
    if slot.is_some() {
        return Err(syn::Error::new(key.span(), format!("duplicate argument `{key}`")));
    }
    match value {
        Expr::Lit(ExprLit { lit: Lit::Bool(b), .. }) => {
            *slot = Some(b.value);
            Ok(())
        }
        _ => Err(syn::Error::new_spanned(value, format!("`{key}` takes `true` or `false`"))),
    }
}

const LIMIT_HELP: &str = "`arena_limit` takes bytes: an integer (`49152`, `48 * 1024`) or a string with a unit (`\"48K\"`, `\"48KiB\"`, `\"1M\"`)";

/// Evaluates an `arena_limit` value: integer literals and products of them,
/// or a string with a K/KiB/M/MiB suffix.
fn parse_limit(e: &Expr) -> syn::Result<usize> {
    parse_bytes(e, LIMIT_HELP)
}

/// A byte amount (`49152`, `48 * 1024`, `48K`, `"48KiB"`); `help` says
/// what the argument takes.
fn parse_bytes(e: &Expr, help: &str) -> syn::Result<usize> {
    let bytes = parse_amount(e, &|s| parse_size(s).and_then(|b| u64::try_from(b).ok()), help)?;
    usize::try_from(bytes).map_err(|_| syn::Error::new_spanned(e, help))
}

/// The one-identifier callee of `name(..)`.
fn call_name(call: &syn::ExprCall) -> Option<&Ident> {
    match &*call.func {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        _ => None,
    }
}

/// An amount argument: integer literals and products of them, or a string
/// `from_str` reads (with its units); `help` says what it takes.
fn parse_amount(e: &Expr, from_str: &dyn Fn(&str) -> Option<u64>, help: &str) -> syn::Result<u64> {
    let err = || syn::Error::new_spanned(e, help);
    match e {
        // `32K`: a unit as the literal's suffix (a Rust integer suffix,
        // `32usize`, is just the number).
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) if !RUST_INT_SUFFIXES.contains(&i.suffix()) => {
            from_str(&format!("{}{}", i.base10_digits(), i.suffix())).ok_or_else(err)
        }
        Expr::Lit(ExprLit { lit: Lit::Int(i), .. }) => i.base10_parse::<u64>().map_err(|_| err()),
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => from_str(&s.value()).ok_or_else(err),
        Expr::Binary(ExprBinary { left, op: syn::BinOp::Mul(_), right, .. }) => {
            parse_amount(left, from_str, help)?.checked_mul(parse_amount(right, from_str, help)?).ok_or_else(err)
        }
        Expr::Paren(p) => parse_amount(&p.expr, from_str, help),
        Expr::Group(g) => parse_amount(&g.expr, from_str, help),
        _ => Err(err()),
    }
}

const RUST_INT_SUFFIXES: &[&str] =
    &["", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize"];

const REGIONS_HELP: &str = "`regions` takes a list of memory regions, fastest first: `[dtcm(\".dtcm\", 32K), sram(\".sram2\", 256K)]` (a name, its link section, its budget in bytes; `name(32K)` leaves the section to the linker's default)";

const COPY_HELP: &str =
    "`copy_weights` takes a region and the bytes of it the copied weights may take: `copy_weights = dtcm(8K)`";

/// Parses `dtcm(8K)`.
fn parse_copy_weights(e: &Expr) -> syn::Result<(String, usize)> {
    let err = || syn::Error::new_spanned(e, COPY_HELP);
    let Expr::Call(call) = e else { return Err(err()) };
    let name = call_name(call).ok_or_else(err)?.to_string();
    let [bytes] = call.args.iter().collect::<Vec<_>>()[..] else { return Err(err()) };
    Ok((name, parse_bytes(bytes, COPY_HELP)?))
}

/// Parses `[dtcm(".dtcm", 32K), sram(".sram2", 256K)]`.
fn parse_regions(e: &Expr) -> syn::Result<Vec<tinyaot_compiler::regions::Region>> {
    let err = |at: &dyn quote::ToTokens, why: &str| syn::Error::new_spanned(at, format!("{why}; {REGIONS_HELP}"));
    let Expr::Array(list) = e else { return Err(err(e, "expected a list `[..]`")) };
    if list.elems.is_empty() {
        return Err(err(e, "give at least one region"));
    }
    let mut regions: Vec<tinyaot_compiler::regions::Region> = Vec::new();
    for item in &list.elems {
        let Expr::Call(call) = item else { return Err(err(item, "expected a region `name(\".section\", bytes)`")) };
        let name = call_name(call).ok_or_else(|| err(&call.func, "a region's name is one identifier"))?;
        let text = name.to_string();
        if syn::parse_str::<Ident>(&text).is_err() || text.starts_with("r#") {
            return Err(err(&name, "a region's name must not be a keyword"));
        }
        if ["arena", "state"].contains(&text.as_str()) {
            return Err(err(&name, &format!("`{text}` names the model's own memory; choose another region name")));
        }
        if regions.iter().any(|r| r.name.eq_ignore_ascii_case(&text)) {
            return Err(err(&name, &format!("two regions named `{text}`")));
        }
        let args: Vec<&Expr> = call.args.iter().collect();
        let (section, budget) = match args[..] {
            [budget] => (None, budget),
            [Expr::Lit(ExprLit { lit: Lit::Str(section), .. }), budget] => {
                if section.value().is_empty() {
                    return Err(err(section, "a link section name is not empty"));
                }
                (Some(section.value()), budget)
            }
            _ => return Err(err(item, "a region takes a link section string and a budget, or a budget")),
        };
        let budget = parse_bytes(budget, REGIONS_HELP)?;
        regions.push(tinyaot_compiler::regions::Region { name: text, section, budget });
    }
    Ok(regions)
}

/// `"48K"`, `"48KiB"`, `"48 KB"`, `"1M"`, `"1024"` to bytes (binary units).
fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let digits = s.find(|c: char| !c.is_ascii_digit() && c != '_').unwrap_or(s.len());
    let n: usize = s[..digits].replace('_', "").parse().ok()?;
    let unit = s[digits..].trim().to_ascii_lowercase();
    let mul = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1024,
        "m" | "mb" | "mib" => 1024 * 1024,
        _ => return None,
    };
    n.checked_mul(mul)
}

const CYCLES_HELP: &str = "`cycle_limit` takes Cortex-M4 cycles: an integer (`12_000_000`, `12 * 1_000_000`) or a string (`\"12M\"`, `\"800k\"`)";

/// Evaluates a `cycle_limit` value: integer literals and products of them,
/// or a string with a decimal k/M/G suffix.
fn parse_cycles(e: &Expr) -> syn::Result<u64> {
    parse_amount(e, &parse_count, CYCLES_HELP)
}

/// `"12M"`, `"800k"`, `"1.5G"`, `"12_000_000"` to a count (decimal units).
fn parse_count(s: &str) -> Option<u64> {
    let s = s.trim().replace('_', "");
    let end = s.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(s.len());
    let n: f64 = s[..end].parse().ok()?;
    let mul = match s[end..].trim() {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        _ => return None,
    };
    let v = (n * mul).round();
    (v.is_finite() && v >= 1.0 && v < u64::MAX as f64).then_some(v as u64)
}

const LATENCY_HELP: &str =
    "`latency_limit` takes a time at the core's clock: `\"20ms @ 64MHz\"` (`s`, `ms`, `us`; `GHz`, `MHz`, `kHz`, `Hz`)";

/// Evaluates a `latency_limit` string, `"20ms @ 64MHz"`, as cycles.
fn parse_latency(e: &Expr) -> syn::Result<u64> {
    let err = || syn::Error::new_spanned(e, LATENCY_HELP);
    let Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) = e else { return Err(err()) };
    latency_cycles(&s.value()).ok_or_else(err)
}

/// `"20ms @ 64MHz"` -> 1,280,000.
fn latency_cycles(s: &str) -> Option<u64> {
    let (time, clock) = s.split_once('@')?;
    let quantity = |q: &str, units: &[(&str, f64)]| -> Option<f64> {
        let q = q.trim();
        let (unit, scale) = units.iter().find(|(u, _)| q.ends_with(u))?;
        let n: f64 = q[..q.len() - unit.len()].trim().parse().ok()?;
        (n > 0.0).then_some(n * scale)
    };
    // Longest units first, so "ms" is not read as "s".
    let seconds = quantity(time, &[("ms", 1e-3), ("us", 1e-6), ("µs", 1e-6), ("s", 1.0)])?;
    let hz = quantity(clock, &[("GHz", 1e9), ("MHz", 1e6), ("kHz", 1e3), ("Hz", 1.0)])?;
    let cycles = (seconds * hz).round();
    (cycles.is_finite() && cycles >= 1.0 && cycles < u64::MAX as f64).then_some(cycles as u64)
}

fn error_at(span: Span, message: &str) -> proc_macro2::TokenStream {
    syn::Error::new(span, message).to_compile_error()
}

fn expand(inv: &Invocation) -> Result<proc_macro2::TokenStream, proc_macro2::TokenStream> {
    let path_span = inv.path.span();
    let raw = PathBuf::from(inv.path.value());
    let path = if raw.is_absolute() {
        raw
    } else {
        let base = std::env::var_os("CARGO_MANIFEST_DIR")
            .map(PathBuf::from)
            .ok_or_else(|| error_at(path_span, "CARGO_MANIFEST_DIR is not set; use an absolute model path"))?;
        let from_manifest = base.join(&raw);
        // Fallback: relative to the file that invokes the macro.
        let from_source = proc_macro::Span::call_site()
            .local_file()
            .and_then(|f| f.parent().map(|d| d.join(&raw)))
            .filter(|p| !from_manifest.exists() && p.exists());
        from_source.unwrap_or(from_manifest)
    };
    let bytes = std::fs::read(&path).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        };
        error_at(
            path_span,
            &format!("cannot read model file {}: {why} (relative paths start at CARGO_MANIFEST_DIR)", path.display()),
        )
    })?;
    let vis = &inv.vis;
    let target = Target { vis: quote!(#vis), name: inv.name.clone(), track_path: path.to_str().map(str::to_string) };
    let opts = tinyaot_compiler::Options {
        in_place: inv.in_place,
        keep_inputs: inv.keep_inputs,
        arena_limit: inv.arena_limit.as_ref().map(|(_, b)| *b),
        borrowed_inputs: inv.borrowed_inputs,
        cycle_limit: inv.cycle_limit.as_ref().map(|(_, c)| *c),
        regions: inv.regions.as_ref().map(|(_, r)| r.clone()).unwrap_or_default(),
        copy_weights: inv.copy_weights.as_ref().map(|(_, c)| c.clone()),
        // The runtime's `helium` feature turns this crate's on: the
        // firmware is for a Cortex-M55/M85, so plan its vector kernels.
        helium: cfg!(feature = "helium"),
    };
    match tinyaot_compiler::compile(&bytes, &target, &opts) {
        Ok(compiled) => {
            if inv.print_plan {
                eprintln!("tinyaot: memory plan of {} ({}):\n{}", inv.name, path.display(), compiled.report);
            }
            Ok(compiled.tokens)
        }
        Err(e) => {
            let span = match (e.site, &inv.arena_limit, &inv.cycle_limit) {
                (Site::ArenaLimit, Some((expr, _)), _) => syn::spanned::Spanned::span(expr),
                (Site::CopyWeights, ..) if inv.copy_weights.is_some() => {
                    inv.copy_weights.as_ref().map_or(path_span, |(expr, _)| syn::spanned::Spanned::span(expr))
                }
                (Site::ArenaLimit, None, _) if inv.regions.is_some() => {
                    inv.regions.as_ref().map_or(path_span, |(expr, _)| syn::spanned::Spanned::span(expr))
                }
                (Site::CycleLimit, _, Some((expr, _))) => syn::spanned::Spanned::span(expr),
                _ => path_span,
            };
            Err(error_at(
                span,
                &format!("{}: {}", path.file_name().and_then(|n| n.to_str()).unwrap_or("model"), e.message),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{latency_cycles, parse_count};

    #[test]
    fn latencies_at_a_clock_are_cycles() {
        assert_eq!(latency_cycles("20ms @ 64MHz"), Some(1_280_000));
        assert_eq!(latency_cycles("1.5 s@120 MHz"), Some(180_000_000));
        assert_eq!(latency_cycles("500us @ 48MHz"), Some(24_000));
        assert_eq!(latency_cycles("2 s @ 32768 Hz"), Some(65_536));
        for bad in ["20ms", "@64MHz", "20 @ 64MHz", "20ms @ 64", "-1ms @ 64MHz", "0s @ 1MHz", "20 min @ 1MHz"] {
            assert_eq!(latency_cycles(bad), None, "{bad}");
        }
    }

    #[test]
    fn cycle_counts_take_decimal_units() {
        assert_eq!(parse_count("12M"), Some(12_000_000));
        assert_eq!(parse_count("800k"), Some(800_000));
        assert_eq!(parse_count("1.5G"), Some(1_500_000_000));
        assert_eq!(parse_count("12_000_000"), Some(12_000_000));
        for bad in ["", "12Mi", "M", "0", "-5"] {
            assert_eq!(parse_count(bad), None, "{bad}");
        }
    }
}
