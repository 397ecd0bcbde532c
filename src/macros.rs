//! `setters!`: the builders' one-field setters, written once.
//!
//! Tool, Resource, Prompt, OAuth, the server builder and the fault rules each have dozens
//! of setters of one shape: take a value, store it in one field, return `self`. Spelling
//! each out took five lines that differed only in names; here each is one line under its
//! own rustdoc, which rustdoc shows as an ordinary method.

/// Defines builder setters, each `fn name(mut self, arg: Type) -> Self` that runs one
/// assignment to a field of `self` and returns `self`.
///
/// ```ignore
/// impl Tool {
///     setters! {
///         /// A display name (`title`).
///         pub fn title(title: impl Into<String>) => spec.title = Some(title.into());
///     }
/// }
/// ```
macro_rules! setters {
    ($(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($arg:ident: $ty:ty) => $($field:ident).+ = $value:expr;
    )*) => {$(
        $(#[$attr])*
        $vis fn $name(mut self, $arg: $ty) -> Self {
            self.$($field).+ = $value;
            self
        }
    )*};
}

/// Defines the setters every listed item shares, a display `title`, spec `Icon`s and
/// `_meta`, for a builder whose `spec` has those three fields. `listed` names the result
/// that shows the title and the icons, `meta` where `_meta` goes.
///
/// ```ignore
/// impl Prompt {
///     listing_setters!(listed: "`prompts/list`", meta: "`prompts/list`");
/// }
/// ```
macro_rules! listing_setters {
    (listed: $listed:literal, meta: $meta:literal) => {
        setters! {
            #[doc = concat!("A display name (`title`), shown in ", $listed, ".")]
            pub fn title(title: impl Into<String>) => spec.title = Some(title.into());

            #[doc = concat!("Spec `Icon`s (an array), passed through to ", $listed, " as given.")]
            pub fn icons(icons: serde_json::Value) => spec.icons = Some(icons);

            #[doc = concat!("`_meta`, passed through to ", $meta, " as given.")]
            pub fn meta(meta: serde_json::Value) => spec.meta = Some(meta);
        }
    };
}
