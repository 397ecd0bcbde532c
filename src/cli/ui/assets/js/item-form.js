// The form of one catalog item, built from its kind's fields (kinds.js): loading an item into
// it, reading it back as a POST or PATCH body, and whether the user changed anything since.
// The body names only the members the form shows, so a save keeps the others.

import { h } from './dom.js';
import { codeArea, field, FieldError, liveTemplateCheck, parseJson, pretty } from './editor.js';

/** `{ form, actions, load(item), body(current), dirty(), stop() }` for `kind`. */
export function itemForm(kind) {
  const controls = kind.fields.map((spec) => control(spec, kind));
  const actions = h('div', { class: 'actions' });
  const state = h('p', { class: 'item-state' });
  const form = h('form', { class: 'card editor', testid: `${kind.one}-form`, novalidate: true },
    h('div', { class: 'editor-head' }, h('h2', {}), state),
    controls.map((c) => c.el),
    actions);
  let snapshot = '';
  // What the user can change; the buttons come and go with the item's state.
  const values = () =>
    JSON.stringify(
      [...form.querySelectorAll('input, textarea, select')].map((el) => (el.type === 'checkbox' ? el.checked : el.value)),
    );
  return {
    form,
    actions,
    state,
    title: form.querySelector('h2'),
    /** Shows `item` (a kind's `blank()` for a new one) and forgets earlier edits. */
    load(item) {
      for (const c of controls) c.set(item);
      snapshot = values();
    },
    /** The body of a create (`current` null) or of a patch of `current`. */
    body(current) {
      const body = {};
      for (const c of controls) c.write(body, current);
      return body;
    },
    dirty: () => values() !== snapshot,
    stop() {
      for (const c of controls) c.stop?.();
    },
  };
}

function control(spec, kind) {
  const { name, label, hint } = spec;
  switch (spec.type) {
    case 'text':
    case 'textarea': {
      const input =
        spec.type === 'text'
          ? h('input', { name, autocomplete: 'off', spellcheck: 'false' })
          : h('textarea', { name, rows: spec.rows ?? 3 });
      const optional = spec.optional || spec.type === 'textarea';
      return {
        el: field(name, label, input, hint),
        set: (item) => (input.value = item[name] ?? ''),
        write(body, current) {
          if (optional && input.value === '') {
            // `null` resets a member in a PATCH; a create leaves it out.
            if (current && current[name] !== undefined) body[name] = null;
          } else body[name] = input.value;
        },
      };
    }
    case 'json': {
      const area = codeArea(name, spec.rows);
      return {
        el: field(name, label, area, hint),
        set: (item) => (area.value = item[name] === undefined ? '' : pretty(item[name])),
        write(body, current) {
          if (area.value.trim() === '') {
            if (current && current[name] !== undefined) body[name] = null;
          } else body[name] = parseJson(name, label, area.value);
        },
      };
    }
    case 'template': {
      const area = codeArea(name, spec.rows);
      const error = h('p', { class: 'template-error', testid: 'template-error', role: 'status', hidden: true });
      const live = liveTemplateCheck(area, error, kind.owner);
      return {
        el: h('div', { class: 'template-field' }, field(name, label, area, hint), error),
        set(item) {
          area.value = pretty(item[name] ?? null);
          live.run();
        },
        write: (body) => (body[name] = parseJson(name, label, area.value)),
        stop: live.stop,
      };
    }
    case 'hints': {
      const boxes = spec.options.map((option) => h('input', { type: 'checkbox', name: option }));
      return {
        el: h('fieldset', { class: 'field hints', data: { field: name } },
          h('legend', {}, label),
          boxes.map((box) => h('label', { class: 'check' }, box, h('code', {}, box.name)))),
        set(item) {
          for (const box of boxes) box.checked = item[name]?.[box.name] === true;
        },
        // Checked is `true`. Unchecked leaves the hint out, unless the item said `false`
        // explicitly: the spec's defaults differ per hint, so `false` means something.
        write(body, current) {
          const hints = { ...(current?.[name] ?? {}) };
          for (const box of boxes) {
            if (box.checked) hints[box.name] = true;
            else if (hints[box.name] !== false) delete hints[box.name];
          }
          if (Object.keys(hints).length > 0) body[name] = hints;
          else if (current && current[name] !== undefined) body[name] = null;
        },
      };
    }
    case 'body': {
      const which = h('select', { name: 'bodyKind' },
        h('option', { value: 'text' }, 'Text'),
        h('option', { value: 'blob' }, 'Blob (base64)'));
      const area = codeArea('body', spec.rows);
      // Two controls, so a group rather than a label; the API names `text` or `blob`.
      const el = h('div', { class: 'field', role: 'group', 'aria-label': label, data: { field: 'text', aliases: 'blob body' } },
        h('span', {}, label), h('div', { class: 'stack' }, which, area));
      return {
        el,
        set(item) {
          which.value = item.blob !== undefined ? 'blob' : 'text';
          area.value = item.blob ?? item.text ?? '';
        },
        write: (body) => (body[which.value] = area.value),
      };
    }
    default:
      throw new FieldError(name, `unknown field type ${spec.type}`);
  }
}
