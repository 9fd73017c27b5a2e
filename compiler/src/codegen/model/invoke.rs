//! The generated type's `invoke` family and its `Stepwise` impl.

use super::{Borrowed, Region};
use crate::Analysis;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `invoke`, `invoke_with` (a hook around every op), `invoke_step` (one
/// part at a time) and, for a model whose inputs are in its arena,
/// `invoke_async` and the `Stepwise` impl; all run the one `run`.
pub(super) fn invoke(
    a: &Analysis<'_>,
    name: &Ident,
    module: &Ident,
    borrowed: &Borrowed,
    regions: &[Region],
) -> (TokenStream, TokenStream) {
    let (input_params, input_args) = (&borrowed.params, &borrowed.args);
    let fields: Vec<&Ident> = regions.iter().map(|r| &r.field).collect();
    let run = |from: TokenStream, to: TokenStream, hook: TokenStream| {
        quote! {
            // SAFETY: each region's field and `self.state` are exclusive
            // borrows of `SIZE_k` and `STATE_SIZE` bytes, 16-aligned by their
            // type; a borrowed input is a shared borrow of its whole array,
            // which the ops only read.
            unsafe { #module::run(#(self.#fields.as_mut_ptr(),)* self.state.as_mut_ptr() #(, #input_args)*, #from, #to, #hook) }
        }
    };
    let whole = run(quote!(0), quote!(#module::STEPS), quote!(&mut ::tinyaot::NoHook));
    let hooked = run(quote!(0), quote!(#module::STEPS), quote!(hook));
    let one = run(quote!(step), quote!(step + 1), quote!(&mut ::tinyaot::NoHook));
    let invoked = quote!(::tinyaot::Invoked);
    // A model with CIRCULAR_BUFFER ops says whether each invoke went through.
    let streaming = a.graph.nodes.iter().any(|n| n.name == crate::ops::circular_buffer::NAME);
    let (ret, done, doc) = if streaming {
        (
            quote!(-> #invoked),
            quote!(if ran { #invoked::Completed } else { #invoked::Stopped }),
            "Runs the model: reads the inputs and, when the invoke goes through, writes the outputs. \
             A streaming model: its CIRCULAR_BUFFER ops let the graph run past them only every few \
             invokes (TFLM's `kTfLiteAbort` otherwise); on `Invoked::Stopped` the outputs are not \
             this invoke's.",
        )
    } else {
        (TokenStream::new(), quote!(let _ = ran;), "Runs the model: reads the inputs, writes the outputs.")
    };
    let step_args = if a.borrowed_inputs {
        " The borrowed inputs are passed to every step: pass the same ones until it finishes."
    } else {
        ""
    };
    let step_doc = format!(
        "Runs the next part of the invoke (an op, a band of a tiled stage, a whole IF or WHILE; \
         `STEPS` in all) and says whether it finished, so a cooperative scheduler can run other \
         work between ops. The outputs once it finishes are `invoke()`'s.{step_args} `invoke()` \
         and `invoke_with` start over from the first part."
    );
    let methods = quote! {
        #[doc = #doc]
        #[inline]
        pub fn invoke(&mut self #(, #input_params)*) #ret {
            self.next_step = 0;
            let ran = #whole;
            #done
        }

        /// `invoke()` with `hook.before`/`hook.after` called around every
        /// op (`tinyaot::Hook`; `tinyaot::Profile` times each op).
        #[inline]
        pub fn invoke_with(&mut self #(, #input_params)*, hook: &mut impl ::tinyaot::Hook) #ret {
            self.next_step = 0;
            let ran = #hooked;
            #done
        }

        #[doc = #step_doc]
        pub fn invoke_step(&mut self #(, #input_params)*) -> ::tinyaot::Step {
            let step = self.next_step;
            if step >= #module::STEPS {
                self.next_step = 0;
                return ::tinyaot::Step::Finished(#invoked::Completed);
            }
            let ran = #one;
            if !ran {
                self.next_step = 0;
                ::tinyaot::Step::Finished(#invoked::Stopped)
            } else if step + 1 == #module::STEPS {
                self.next_step = 0;
                ::tinyaot::Step::Finished(#invoked::Completed)
            } else {
                self.next_step = step + 1;
                ::tinyaot::Step::Ran
            }
        }
    };
    if a.borrowed_inputs {
        return (methods, TokenStream::new());
    }
    let methods = quote! {
        #methods

        /// The invoke as a future that yields to the executor after every
        /// part (`invoke_step`), so other tasks run between ops
        /// (`tinyaot::invoke_stepwise`).
        pub fn invoke_async(&mut self) -> ::tinyaot::InvokeStepwise<'_, Self> {
            ::tinyaot::invoke_stepwise(self)
        }
    };
    let stepwise = quote! {
        #[allow(clippy::all, clippy::pedantic, clippy::nursery)]
        impl ::tinyaot::Stepwise for #name<'_> {
            fn invoke_step(&mut self) -> ::tinyaot::Step {
                #name::invoke_step(self)
            }
        }
    };
    (methods, stepwise)
}
