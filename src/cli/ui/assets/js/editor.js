// What every form shares: the API's problem shown verbatim next to the field it names, JSON
// fields, and the live template check (product guide, "Write a response template": the UI
// renders the template with empty arguments while you type and reports only errors that no
// arguments can fix; `POST /api/v1/templates/check` is the check a save runs).

import { api } from './api.js';
import { debounce, h } from './dom.js';

/**
 * Shows a problem in `form`: one `form-error` after the element whose `data-field` is the
 * first segment of the problem's `field` (`inputSchema` for `inputSchema.properties`), or
 * before the buttons when no field of the form is named.
 */
export function showProblem(form, problem) {
  clearProblem(form);
  const detail = problem?.detail ?? String(problem);
  const member = (problem?.field ?? '').split(/[.[]/)[0];
  const name = CSS.escape(member);
  const field = member ? form.querySelector(`[data-field="${name}"], [data-aliases~="${name}"]`) : null;
  const error = h('p', { class: 'form-error', testid: 'form-error', role: 'alert' }, detail);
  if (field) {
    field.classList.add('invalid');
    field.after(error);
  } else {
    const actions = form.querySelector('.actions');
    if (actions) actions.before(error);
    else form.append(error);
  }
  error.scrollIntoView({ block: 'nearest' });
}

export function clearProblem(form) {
  for (const old of form.querySelectorAll('[data-testid="form-error"]')) old.remove();
  for (const field of form.querySelectorAll('.invalid')) field.classList.remove('invalid');
}

/** A problem the page finds itself before asking the API (a field that is not JSON). */
export class FieldError extends Error {
  constructor(field, detail) {
    super(detail);
    this.field = field;
    this.detail = detail;
  }
}

/** Parses a JSON field, naming it when it does not parse. */
export function parseJson(field, label, text) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FieldError(field, `${label} is not valid JSON: ${error.message}`);
  }
}

/** Pretty JSON for a textarea. */
export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

/**
 * Checks `textarea`'s template as the user types (debounced), showing the verdict in
 * `output` (`template-error`: hidden and empty while the template is fine). `owner` is
 * `tool`, `prompt` or `resourceTemplate`. Returns `{ run, stop }`.
 */
export function liveTemplateCheck(textarea, output, owner) {
  let turn = 0;
  let stopped = false;
  const show = (message) => {
    output.textContent = message;
    output.hidden = message === '';
    textarea.setAttribute('aria-invalid', String(message !== ''));
  };
  const check = async () => {
    const mine = ++turn;
    let template;
    try {
      template = JSON.parse(textarea.value);
    } catch (error) {
      show(`The template is not valid JSON: ${error.message}`);
      return;
    }
    try {
      const verdict = await api.post('/templates/check', { template, owner });
      if (mine === turn && !stopped) show(verdict.ok ? '' : verdict.error);
    } catch (problem) {
      if (mine === turn && !stopped) show(problem.detail);
    }
  };
  const later = debounce(check, 300);
  textarea.addEventListener('input', later);
  check();
  return {
    run: check,
    stop: () => {
      stopped = true;
      later.cancel();
    },
  };
}

/** A labelled field wrapper whose `data-field` lets `showProblem` find it. */
export function field(name, label, control, hint) {
  return h(
    'label',
    { class: 'field', data: { field: name } },
    h('span', {}, label),
    control,
    hint ? h('small', { class: 'hint' }, hint) : null,
  );
}

/** A monospace textarea for JSON. Tab still moves the focus on: a keyboard user must be able
 * to leave the field. */
export function codeArea(name, rows = 8) {
  return h('textarea', { name, rows, spellcheck: 'false', class: 'code', autocomplete: 'off' });
}
