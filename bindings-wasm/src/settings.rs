//! Truncation, padding and the vocabulary, with the `tokenizers` npm package's names and
//! semantics (`setTruncation`, `setPadding`, `getVocab`, `addTokens`, `AddedToken`), as the
//! Node binding has them. A setter replaces the page tokenizer's core handle; tasks already
//! made keep the one they were made with. Served by a tokenizer from `tokenizer.json` only.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::{check_options, core_error, get, opt_bool, opt_string, type_error, Tokenizer};

/// A non-negative integer option (`None` when absent), or a `TypeError` naming `what`.
fn opt_uint(options: &JsValue, key: &str) -> Result<Option<u32>, JsValue> {
    let v = get(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    uint(&v, &format!("options.{key}")).map(Some)
}

fn uint(v: &JsValue, what: &str) -> Result<u32, JsValue> {
    match v.as_f64() {
        Some(n) if n.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&n) => Ok(n as u32),
        _ => Err(type_error(format!("{what} must be a non-negative integer"))),
    }
}

/// `options[key]` as one of `names` (`(JS name, core name)`), `default` when absent.
fn choice<'a>(options: &JsValue, key: &str, names: &[(&str, &'a str)], default: &'a str) -> Result<&'a str, JsValue> {
    let v = get(options, key);
    if v.is_undefined() || v.is_null() {
        return Ok(default);
    }
    let name = v.as_string().or_else(|| v.as_f64().map(|n| n.to_string()));
    name.and_then(|n| names.iter().find(|(js, _)| *js == n).map(|(_, core)| *core)).ok_or_else(|| {
        let all: Vec<String> = names.iter().map(|(js, _)| format!("{js:?}")).collect();
        js_sys::RangeError::new(&format!("options.{key} must be one of {}", all.join(", "))).into()
    })
}

/// `tokenizers` npm's `TruncationStrategy` values, and the snake_case names of its Python API.
const STRATEGIES: [(&str, &str); 6] = [
    ("LongestFirst", "longest_first"),
    ("OnlyFirst", "only_first"),
    ("OnlySecond", "only_second"),
    ("longest_first", "longest_first"),
    ("only_first", "only_first"),
    ("only_second", "only_second"),
];
const DIRECTIONS: [(&str, &str); 2] = [("left", "left"), ("right", "right")];
/// Directions by name, and `tokenizers` npm's `PaddingDirection` values (Left = 0, Right = 1).
const PADDING_DIRECTIONS: [(&str, &str); 4] = [("left", "left"), ("right", "right"), ("0", "left"), ("1", "right")];

/// A token to add to the vocabulary, as `tokenizers`' `AddedToken`: `special`, and the
/// options `singleWord`, `leftStrip`, `rightStrip` (default false) and `normalized` (default
/// `!isSpecial`).
#[wasm_bindgen]
pub struct AddedToken {
    token: yieldtok::AddedToken,
}

#[wasm_bindgen]
impl AddedToken {
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "string")] token: JsValue,
        #[wasm_bindgen(js_name = isSpecial, unchecked_optional_param_type = "boolean")] is_special: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "AddedTokenOptions")] options: JsValue,
    ) -> Result<AddedToken, JsValue> {
        let content = token.as_string().ok_or_else(|| type_error("token must be a string"))?;
        check_options(&options)?;
        let special = match (is_special.is_undefined() || is_special.is_null(), is_special.as_bool()) {
            (true, _) => false,
            (false, Some(b)) => b,
            (false, None) => return Err(type_error("isSpecial must be a boolean")),
        };
        Ok(AddedToken { token: added_token(content, special, !special, &options)? })
    }

    #[wasm_bindgen(getter)]
    pub fn content(&self) -> String {
        self.token.content.clone()
    }
    #[wasm_bindgen(getter)]
    pub fn special(&self) -> bool {
        self.token.special
    }
    #[wasm_bindgen(getter, js_name = singleWord)]
    pub fn single_word(&self) -> bool {
        self.token.single_word
    }
    #[wasm_bindgen(getter, js_name = leftStrip)]
    pub fn left_strip(&self) -> bool {
        self.token.lstrip
    }
    #[wasm_bindgen(getter, js_name = rightStrip)]
    pub fn right_strip(&self) -> bool {
        self.token.rstrip
    }
    #[wasm_bindgen(getter)]
    pub fn normalized(&self) -> bool {
        self.token.normalized
    }
}

/// A token with the flags read from `flags` (`normalized` defaulting to `normalized`).
fn added_token(
    content: String,
    special: bool,
    normalized: bool,
    flags: &JsValue,
) -> Result<yieldtok::AddedToken, JsValue> {
    Ok(yieldtok::AddedToken {
        content,
        special,
        single_word: opt_bool(flags, "singleWord", false)?,
        lstrip: opt_bool(flags, "leftStrip", false)?,
        rstrip: opt_bool(flags, "rightStrip", false)?,
        normalized: opt_bool(flags, "normalized", normalized)?,
    })
}

/// Tokens to add: strings, `AddedToken`s, or objects with their fields (`content`, ...).
fn added_tokens(tokens: &JsValue, special: bool) -> Result<Vec<yieldtok::AddedToken>, JsValue> {
    if !Array::is_array(tokens) {
        return Err(type_error("tokens must be an array of strings or AddedTokens"));
    }
    let mut out = Vec::new();
    for (i, t) in Array::from(tokens).iter().enumerate() {
        if let Some(s) = t.as_string() {
            out.push(added_token(s, special, !special, &JsValue::UNDEFINED)?);
            continue;
        }
        // An `AddedToken` (its getters are on the prototype, which `Reflect.get` reads) or a
        // plain object with the same fields.
        let content = opt_string(&t, "content").ok().flatten();
        let Some(content) = content.filter(|_| t.is_object()) else {
            return Err(type_error(format!("tokens[{i}] must be a string or an AddedToken")));
        };
        // `normalized` defaults by the token's own flag, as its constructor sets it.
        let own_special = opt_bool(&t, "special", false)?;
        out.push(added_token(content, special || own_special, !own_special, &t)?);
    }
    Ok(out)
}

#[wasm_bindgen]
impl Tokenizer {
    /// Truncate every encode to `maxLength` tokens, as `tokenizers`' `setTruncation`
    /// (`stride` 0, `strategy` `"longest_first"`, `direction` `"right"`). Encodings here carry
    /// no overflowing parts, so right truncation of a text stops encoding once the kept tokens
    /// are certain (the core's early stop): a long text truncated to 512 tokens encodes a few KB.
    #[wasm_bindgen(js_name = setTruncation)]
    pub fn set_truncation(
        &mut self,
        #[wasm_bindgen(js_name = maxLength, unchecked_param_type = "number")] max_length: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "TruncationOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        check_options(&options)?;
        let max_length = uint(&max_length, "maxLength")? as usize;
        let stride = opt_uint(&options, "stride")?.unwrap_or(0) as usize;
        let strategy = choice(&options, "strategy", &STRATEGIES, "longest_first")?;
        let direction = choice(&options, "direction", &DIRECTIONS, "right")?;
        let params = yieldtok::TruncationParams {
            max_length,
            stride,
            strategy: yieldtok::post::truncation_strategy(strategy).expect("a core name"),
            direction: yieldtok::post::truncation_direction(direction).expect("a core name"),
        };
        let tok = self.full_mut("setTruncation")?;
        *tok = tok.with_truncation(Some(params)).map_err(core_error)?.with_overflowing(false);
        Ok(())
    }

    #[wasm_bindgen(js_name = disableTruncation)]
    pub fn disable_truncation(&mut self) -> Result<(), JsValue> {
        let tok = self.full_mut("disableTruncation")?;
        *tok = tok.with_truncation(None).map_err(core_error)?;
        Ok(())
    }

    /// Pad every encode, as `tokenizers`' `setPadding`: to `maxLength` tokens when given, else
    /// a batch to its longest item; `direction` (`"right"`), `padId` (0), `padTypeId` (0),
    /// `padToken` (`"[PAD]"`), `padToMultipleOf`.
    #[wasm_bindgen(js_name = setPadding)]
    pub fn set_padding(
        &mut self,
        #[wasm_bindgen(unchecked_optional_param_type = "PaddingOptions")] options: JsValue,
    ) -> Result<(), JsValue> {
        check_options(&options)?;
        let direction = choice(&options, "direction", &PADDING_DIRECTIONS, "right")?;
        let params = yieldtok::post::padding_params(
            yieldtok::post::padding_direction(direction).expect("a core name"),
            opt_uint(&options, "padId")?.unwrap_or(0),
            opt_uint(&options, "padTypeId")?.unwrap_or(0),
            &opt_string(&options, "padToken")?.unwrap_or_else(|| "[PAD]".to_string()),
            opt_uint(&options, "maxLength")?.map(|n| n as usize),
            opt_uint(&options, "padToMultipleOf")?.map(|n| n as usize),
        );
        let tok = self.full_mut("setPadding")?;
        *tok = tok.with_padding(Some(params));
        Ok(())
    }

    #[wasm_bindgen(js_name = disablePadding)]
    pub fn disable_padding(&mut self) -> Result<(), JsValue> {
        let tok = self.full_mut("disablePadding")?;
        *tok = tok.with_padding(None);
        Ok(())
    }

    /// Token -> id for the whole vocabulary (with the added tokens unless `withAddedTokens`
    /// is false), as `tokenizers`' `getVocab`.
    #[wasm_bindgen(js_name = getVocab, unchecked_return_type = "Record<string, number>")]
    pub fn get_vocab(
        &self,
        #[wasm_bindgen(js_name = withAddedTokens)] with_added_tokens: Option<bool>,
    ) -> Result<JsValue, JsValue> {
        let vocab = self.full("getVocab")?.vocab(with_added_tokens.unwrap_or(true));
        let obj = Object::new();
        for (token, id) in vocab {
            Reflect::set(&obj, &JsValue::from_str(&token), &JsValue::from(id))?;
        }
        Ok(obj.into())
    }

    /// Add tokens (strings or `AddedToken`s) to the vocabulary; returns how many were new.
    #[wasm_bindgen(js_name = addTokens)]
    pub fn add_tokens(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "(string | AddedToken)[]")] tokens: JsValue,
    ) -> Result<u32, JsValue> {
        self.add(&tokens, false, "addTokens")
    }

    /// Add special tokens (strings or `AddedToken`s, all made special), as `tokenizers`'
    /// `addSpecialTokens`; returns how many were new.
    #[wasm_bindgen(js_name = addSpecialTokens)]
    pub fn add_special_tokens(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "(string | AddedToken)[]")] tokens: JsValue,
    ) -> Result<u32, JsValue> {
        self.add(&tokens, true, "addSpecialTokens")
    }
}

impl Tokenizer {
    fn add(&mut self, tokens: &JsValue, special: bool, what: &str) -> Result<u32, JsValue> {
        let tokens = added_tokens(tokens, special)?;
        let tok = self.full_mut(what)?;
        let (new, n) = if special { tok.with_added_special_tokens(&tokens) } else { tok.with_added_tokens(&tokens) }
            .map_err(core_error)?;
        *tok = new;
        Ok(n as u32)
    }
}
