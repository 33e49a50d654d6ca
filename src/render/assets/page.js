/* opsweep page: search, filters and shareable state. Inlined by `opsweep render`.
 *
 * The page is complete without this script (plain tables); the script only hides rows. Each row
 * carries its statuses (data-s: one token per path, in the order of the config's paths; the config
 * also lists which tokens are supported, failures and dynamic-shape caveats), its sub-verdicts'
 * statuses (data-v: "onnx/openvino:fail onnx/tract:ok", those that ran), its graph-break count
 * (data-b), its search text (data-q), when a path says yes without having been checked on fresh
 * inputs data-nf, the flags its supported paths set (data-x: "executorch:flag:not_delegated", a path's
 * flag facts), and its row tokens (data-h: on pages of several torch releases changed, since,
 * broken; on a comparison of two libraries those the config lists, such as one-only). State lives in the URL hash:
 * #q=<search>&f=<filter>; a hash without "=" is a plain anchor (a row's permalink).
 *
 * Inside another document (the reStructuredText page built by Sphinx), the page cannot write its
 * own markup: a row's data sits on the permalink in its first cell (a.opsweep-row), and a package
 * or section says what it is by an empty marker (span.opsweep-group, span.opsweep-box) in its
 * section. adopt() moves them where this script reads them (data-* on the tr; data-group and
 * data-box on the section) before anything else.
 */
(function () {
  'use strict';
  var doc = document;

  function adopt() {
    Array.prototype.forEach.call(doc.querySelectorAll('a.opsweep-row'), function (link) {
      var tr = link.closest('tr');
      if (!tr) return;
      Array.prototype.slice.call(link.attributes).forEach(function (attr) {
        if (attr.name.lastIndexOf('data-', 0) === 0) {
          tr.setAttribute(attr.name, attr.value);
          link.removeAttribute(attr.name);
        }
      });
      tr.id = link.id;  // so that the row is the permalink's target (tr:target, revealTarget)
      link.removeAttribute('id');
    });
    Array.prototype.forEach.call(doc.querySelectorAll('span.opsweep-group, span.opsweep-box'), function (marker) {
      var section = marker.closest('section, div.section');
      if (section) section.setAttribute(marker.className === 'opsweep-group' ? 'data-group' : 'data-box', '');
    });
    Array.prototype.forEach.call(doc.querySelectorAll('.opsweep-page.no-js'), function (page) {
      page.classList.remove('no-js');
    });
  }
  adopt();

  var config = JSON.parse(doc.getElementById('opsweep-config').textContent);
  var pathIds = config.paths;
  var total = config.total;
  var search = doc.getElementById('q');
  var filter = doc.getElementById('f');
  var count = doc.getElementById('count');
  var empty = doc.getElementById('no-match');
  function tokenSet(list) {
    var set = {};
    (list || []).forEach(function (token) { set[token] = 1; });
    return set;
  }
  // Which status tokens count as a failure, as supported and as a dynamic-shape caveat: the
  // engine says so in the config (core/status.h), the script does not keep its own list.
  var FAILURE = tokenSet(config.failure);
  var SUPPORTED = tokenSet(config.supported);
  var BASE = config.base || [];  // the paths without a group (not the dynamic-shape ones): "base-ok"
  var CAVEAT = tokenSet(config.caveat);
  // Filters matched by a row's tokens (data-h): the history's, and any the page declares (a
  // comparison's "one-only").
  var HISTORY = tokenSet(['changed', 'since', 'broken'].concat(config.tokens || []));
  var UNIT = ' ' + (config.unit || 'configurations');
  var numberFormat = new Intl.NumberFormat('en-US');

  var rows = [];
  var boxes = [];   // sections (one table each): their rows are counted and the box hidden at 0
  var groups = [];  // packages: hidden when none of their boxes shows a row
  Array.prototype.forEach.call(doc.querySelectorAll('[data-group]'), function (group) {
    group._opsweep = { el: group, shown: 0 };
    groups.push(group._opsweep);
  });
  Array.prototype.forEach.call(doc.querySelectorAll('[data-box]'), function (box) {
    var group = box.closest('[data-group]');
    var entry = {
      el: box, cnt: box.querySelector('.cnt'), total: 0, shown: 0, group: group ? group._opsweep : null
    };
    boxes.push(entry);
    Array.prototype.forEach.call(box.querySelectorAll('tr[data-s]'), function (tr) {
      var subs = {};
      (tr.getAttribute('data-v') || '').split(' ').forEach(function (item) {
        var colon = item.lastIndexOf(':');
        if (colon > 0) subs[item.slice(0, colon)] = item.slice(colon + 1);
      });
      rows.push({
        el: tr,
        q: (tr.getAttribute('data-q') || '').toLowerCase(),
        s: tr.getAttribute('data-s').split(' '),
        v: subs,
        b: +(tr.getAttribute('data-b') || 0),
        nf: tr.hasAttribute('data-nf'),
        x: (tr.getAttribute('data-x') || '').split(' '),
        h: (tr.getAttribute('data-h') || '').split(' '),
        shown: true,
        box: entry
      });
      entry.total++;
    });
  });

  function matches(row, value) {
    var i;
    if (!value || value === 'all') return true;
    if (value === 'failure') {
      for (i = 0; i < row.s.length; i++) if (FAILURE[row.s[i]]) return true;
      return false;
    }
    if (value === 'breaks') return row.b > 0;
    if (value === 'not-fresh') return row.nf;
    if (value.indexOf(':flag:') > 0) return row.x.indexOf(value) >= 0;  // a path's flag: "<path>:flag:<fact>"
    if (HISTORY[value]) return row.h.indexOf(value) >= 0;
    if (value === 'caveat') {
      for (i = 0; i < row.s.length; i++) if (CAVEAT[row.s[i]]) return true;
      return false;
    }
    if (value === 'base-ok') {
      for (i = 0; i < BASE.length; i++) if (!SUPPORTED[row.s[BASE[i]]]) return false;
      return true;
    }
    if (value === 'all-ok') {
      for (i = 0; i < row.s.length; i++) if (!SUPPORTED[row.s[i]]) return false;
      return true;
    }
    var colon = value.lastIndexOf(':');
    if (colon < 0) return false;
    var key = value.slice(0, colon);
    var wanted = value.slice(colon + 1);
    var slash = key.indexOf('/');
    var path = pathIds.indexOf(slash < 0 ? key : key.slice(0, slash));
    if (path < 0) return false;
    var status = row.s[path];
    if (slash >= 0) {
      // A sub-verdict ("onnx/openvino"): only rows where it ran; "differs" compares it with its path.
      var sub = row.v[key];
      if (sub === undefined) return false;
      if (wanted === 'differs') return sub !== status;
      status = sub;
    }
    if (wanted === 'supported') return !!SUPPORTED[status];
    if (wanted === 'failure') return !!FAILURE[status];
    return status === wanted;
  }

  function hasOption(value) {
    for (var i = 0; i < filter.options.length; i++) if (filter.options[i].value === value) return true;
    return false;
  }

  function writeState() {
    var parts = [];
    if (search.value) parts.push('q=' + encodeURIComponent(search.value));
    if (filter.value !== 'all') parts.push('f=' + encodeURIComponent(filter.value).replace(/%3A/g, ':'));
    var base = location.pathname + location.search;
    var target = parts.length ? base + '#' + parts.join('&') : base;
    if (target !== location.pathname + location.search + location.hash) {
      try { history.replaceState(null, '', target); } catch (e) { /* file:// quirks: state stays local */ }
    }
  }

  function apply(write) {
    var started = performance.now();
    var terms = search.value.toLowerCase().split(/\s+/).filter(Boolean);
    var value = filter.value;
    var shown = 0, i, j;
    for (i = 0; i < boxes.length; i++) boxes[i].shown = 0;
    for (i = 0; i < groups.length; i++) groups[i].shown = 0;
    for (i = 0; i < rows.length; i++) {
      var row = rows[i];
      var ok = matches(row, value);
      for (j = 0; ok && j < terms.length; j++) ok = row.q.indexOf(terms[j]) >= 0;
      if (ok !== row.shown) {
        row.el.hidden = !ok;
        row.shown = ok;
      }
      if (ok) {
        shown++;
        row.box.shown++;
      }
    }
    var filtered = terms.length > 0 || value !== 'all';
    for (i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      box.el.hidden = filtered && box.shown === 0;
      if (box.group) box.group.shown += box.shown;
      if (box.cnt) {
        box.cnt.textContent = filtered
          ? numberFormat.format(box.shown) + ' of ' + numberFormat.format(box.total)
          : numberFormat.format(box.total);
      }
    }
    for (i = 0; i < groups.length; i++) groups[i].el.hidden = filtered && groups[i].shown === 0;
    count.textContent = filtered
      ? 'showing ' + numberFormat.format(shown) + ' of ' + numberFormat.format(total)
      : numberFormat.format(total) + UNIT;
    empty.hidden = shown > 0;
    if (write) writeState();
    // Read by the tests and handy in the console: how long the last filtering took.
    window.opsweepFilterMs = performance.now() - started;
  }

  function readState() {
    var hash = location.hash.slice(1);
    var source = hash.indexOf('=') >= 0 ? hash : location.search.slice(1);
    var params = new URLSearchParams(source);
    search.value = params.get('q') || '';
    var value = params.get('f') || 'all';
    filter.value = hasOption(value) ? value : 'all';
  }

  function revealTarget() {
    var hash = location.hash.slice(1);
    if (!hash || hash.indexOf('=') >= 0) return;
    var id = hash;
    try { id = decodeURIComponent(hash); } catch (e) { /* a malformed escape: use it as it is */ }
    var target = doc.getElementById(id);
    if (target && target.closest('[hidden]')) {
      search.value = '';
      filter.value = 'all';
      apply(false);
      target.scrollIntoView();
    }
  }

  // `input` on every keystroke; `change` and `search` also cover clearing the box by other means.
  ['input', 'change', 'search'].forEach(function (type) {
    search.addEventListener(type, function () { apply(true); });
  });
  filter.addEventListener('change', function () { apply(true); });
  window.addEventListener('hashchange', function () {
    if (location.hash.indexOf('=') >= 0) {
      readState();
      apply(false);
    } else {
      revealTarget();
    }
  });
  doc.addEventListener('keydown', function (event) {
    var active = doc.activeElement;
    var typing = active && (active.tagName === 'INPUT' || active.tagName === 'SELECT' || active.tagName === 'TEXTAREA');
    if (event.key === '/' && !typing) {
      event.preventDefault();
      search.focus();
    } else if (event.key === 'Escape' && active === search && search.value) {
      search.value = '';
      apply(true);
    }
  });

  readState();
  apply(false);
  revealTarget();
})();
