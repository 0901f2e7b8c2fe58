// An action's form is fetched when its <details> opens: the `.lazy-form` inside has hx-trigger "toggle once from:closest
// details". htmx listens only from the moment it has processed that element, which is at DOMContentLoaded for the page
// and, for what a swap brings in (a new card that a refresh morphs into the board), at the swap's settle. A <details>
// opened before then has had its `toggle` already, so its form never came (the board's flaky phone run). Each time
// htmx has processed some content (`htmx:load`), any <details> in it that is already open and still waits for its form
// is given its `toggle` again; "once" keeps a form that is already coming from being asked for twice. The same brings
// the form again when a refresh or a card's answer puts a new placeholder in an open <details> (a card's form drawn
// for an earlier version of its character: web/board_card_lazy.html); a card's placeholder sits in its form's place
// (`section.card-form`), so the <details> is its closest, not its parent; what the GM had typed in it is put back
// (`restore`). A file of our own: the CSP allows no inline script.
(function () {
  "use strict";
  if (typeof htmx === "undefined") {
    return;
  }
  // What the GM typed into a card's form, by card and action (`card-<id>-<action>`, the form's id without what it is
  // drawn for: `-v<version>`, then the clock's `-t<game time>` and `-j<advance>`, campaign.web.board.clock_drawn):
  // the form drawn again for its character's new version, or once the clock has moved, comes back with it, each
  // field of the same name where the new form still offers its value (a select's option; a checkbox; a radio's
  // choice). An open form and what is typed in it survive a refresh, as before forms followed the version.
  // Forgotten once the form is sent; a refused form's answer is what was sent, kept again (`keepRefused`), so that
  // the form drawn again comes back as it was sent, without the refusal, whose cause is gone with the version or
  // the clock it was made at.
  var FORM_ID = /^(card-\d+-[a-z_]+)-v\d+(?:-t\d+)?(?:-j\d+)?$/;
  var typed = {};

  function keyOf(form) {
    var found = form && form.id ? FORM_ID.exec(form.id) : null;
    return found ? found[1] : null;
  }

  function remember(event) {
    var field = event.target;
    var key = keyOf(field && field.form);
    if (!key || !field.name || field.type === "hidden" || (field.type === "radio" && !field.checked)) {
      return;
    }
    var kept = typed[key] || (typed[key] = {});
    kept[field.name] = field.type === "checkbox" ? { checked: field.checked } : { value: field.value };
  }

  // A card's form answered with a refusal (role=alert): its fields as sent, remembered as typed.
  function keepRefused(form) {
    var key = keyOf(form);
    if (!key || !form.querySelector("[role=alert]")) {
      return;
    }
    var kept = typed[key] || (typed[key] = {});
    Array.prototype.forEach.call(form.elements, function (field) {
      if (!field.name || field.type === "hidden" || field.type === "submit" || field.tagName === "BUTTON") {
        return;
      }
      if (field.type === "checkbox" && form.querySelectorAll('input[type=checkbox][name="' + CSS.escape(field.name) + '"]').length > 1) {
        return; // a group of boxes (a choice of several): kept only as typed
      }
      if (field.type === "radio") {
        if (field.checked) {
          kept[field.name] = { value: field.value };
        }
      } else {
        kept[field.name] = field.type === "checkbox" ? { checked: field.checked } : { value: field.value };
      }
    });
  }

  function offers(select, value) {
    return Array.prototype.some.call(select.options, function (option) {
      return option.value === value;
    });
  }

  function restore(form) {
    var kept = typed[keyOf(form)];
    if (!kept) {
      return;
    }
    Object.keys(kept).forEach(function (name) {
      var was = kept[name];
      var fields = form.querySelectorAll('[name="' + CSS.escape(name) + '"]');
      Array.prototype.forEach.call(fields, function (field) {
        if (field.type === "hidden") {
          return;
        }
        if (field.type === "checkbox") {
          field.checked = was.checked;
        } else if (field.type === "radio") {
          field.checked = field.value === was.value;
        } else if (field.tagName !== "SELECT" || offers(field, was.value)) {
          field.value = was.value;
        }
      });
    });
  }

  document.addEventListener("input", remember);
  document.addEventListener("change", remember);
  document.addEventListener(
    "submit",
    function (event) {
      var key = keyOf(event.target);
      if (key) {
        delete typed[key];
      }
    },
    true
  );

  document.addEventListener("htmx:load", function (event) {
    var root = event.target;
    if (!root || !root.querySelectorAll) {
      return;
    }
    var forms = Array.prototype.slice.call(root.querySelectorAll("form[id^='card-']"));
    if (root.matches && root.matches("form[id^='card-']")) {
      forms.push(root);
    }
    forms.forEach(restore);
    forms.forEach(keepRefused);
    var found = Array.prototype.slice.call(root.querySelectorAll(".lazy-form"));
    if (root.matches && root.matches(".lazy-form")) {
      found.push(root);
    }
    found.forEach(function (lazy) {
      var details = lazy.closest("details");
      if (details && details.open) {
        htmx.trigger(details, "toggle");
      }
    });
  });
})();
