// The threatgate console's one script. It only enhances: every page is whole without it.
// - A button [data-auto-refresh="SECONDS"] (hidden until this runs) turns a periodic reload of the page on and off, remembered for the tab.
// - A form [data-busy-label] disables its submit button while the post runs, so a slow pull is not started twice.
(() => {
  const STORAGE_KEY = 'threatgate-console-auto-refresh';

  function remembered() {
    try {
      return window.sessionStorage.getItem(STORAGE_KEY) === 'on';
    } catch {
      return false;
    }
  }

  function remember(on) {
    try {
      window.sessionStorage.setItem(STORAGE_KEY, on ? 'on' : 'off');
    } catch {
      // Storage refused (a private window's policy): the toggle still works for this page.
    }
  }

  const toggle = document.querySelector('button[data-auto-refresh]');
  if (toggle) {
    const seconds = Math.max(10, Number(toggle.getAttribute('data-auto-refresh')) || 60);
    let timer;
    const set = (on) => {
      toggle.setAttribute('aria-pressed', on ? 'true' : 'false');
      toggle.textContent = on ? `Auto-refresh on (every ${seconds} s)` : 'Auto-refresh off';
      remember(on);
      window.clearTimeout(timer);
      if (on) timer = window.setTimeout(() => window.location.reload(), seconds * 1000);
    };
    toggle.hidden = false;
    toggle.addEventListener('click', () => set(toggle.getAttribute('aria-pressed') !== 'true'));
    set(remembered());
  }

  for (const form of document.querySelectorAll('form[data-busy-label]')) {
    form.addEventListener('submit', () => {
      const button = form.querySelector('button[type="submit"]');
      if (!button) return;
      // Disabled after the submission has started, so the post itself still goes.
      window.setTimeout(() => {
        button.disabled = true;
        button.textContent = form.getAttribute('data-busy-label');
      }, 0);
    });
  }
})();
