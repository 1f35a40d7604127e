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
