// Progressive enhancement of the admin pages; every page works without it.
(function () {
  'use strict';
  var base = document.documentElement.getAttribute('data-base') || '';

  // Links of the reference's e-mails (#/reset/finish?key=…, #/activate?key=…): browsers never
  // send the fragment, so only a script can forward them to this site's pages.
  var hash = window.location.hash;
  var match = /^#\/(reset\/finish|activate)(\?.*)?$/.exec(hash);
  if (match) {
    var target = match[1] === 'activate' ? '/activate' : '/account/reset/finish';
    window.location.replace(base + target + (match[2] || ''));
    return;
  }

  document.addEventListener('DOMContentLoaded', function () {
    // Instants are rendered in UTC; show them in the browser's locale and zone.
    var times = document.querySelectorAll('time[datetime]');
    for (var i = 0; i < times.length; i++) {
      var d = new Date(times[i].getAttribute('datetime'));
      if (!isNaN(d.getTime())) {
        times[i].title = times[i].textContent;
        times[i].textContent = d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' });
      }
    }
    // Buttons that print the page (the print stylesheet keeps only what matters).
    var printers = document.querySelectorAll('[data-print]');
    for (var j = 0; j < printers.length; j++) {
      printers[j].hidden = false;
      printers[j].addEventListener('click', function () { window.print(); });
    }
  });
})();

// Project pages: "Load more" appends the next page's rows instead of leaving the page (keyset
// cursor in the link, so no row repeats); without JavaScript the link opens that page.
(function () {
  'use strict';
  document.addEventListener('click', function (event) {
    var link = event.target.closest && event.target.closest('a[data-load-more]');
    if (!link) return;
    event.preventDefault();
    link.setAttribute('aria-disabled', 'true');
    fetch(link.href, { credentials: 'same-origin' }).then(function (response) {
      if (!response.ok) throw new Error(String(response.status));
      return response.text();
    }).then(function (html) {
      var next = new DOMParser().parseFromString(html, 'text/html');
      var body = document.querySelector('#subjects tbody');
      var rows = next.querySelectorAll('#subjects tbody tr');
      for (var i = 0; i < rows.length; i++) body.appendChild(document.importNode(rows[i], true));
      ['subjects-count', 'load-more'].forEach(function (id) {
        var mine = document.getElementById(id);
        var theirs = next.getElementById(id);
        if (mine && theirs) mine.innerHTML = theirs.innerHTML;
      });
    }).catch(function () { window.location.href = link.href; });
  });
})();
