// Progressive enhancement only: every page works without this file.
// A "Copy" button beside each element marked data-copy (the API key secret shown once).
document.addEventListener('DOMContentLoaded', () => {
  for (const element of document.querySelectorAll('[data-copy]')) {
    if (!navigator.clipboard) continue;
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary copy';
    button.textContent = 'Copy';
    button.setAttribute('aria-label', element.getAttribute('data-copy') || 'Copy');
    button.addEventListener('click', async () => {
      await navigator.clipboard.writeText(element.textContent.trim());
      button.textContent = 'Copied';
    });
    element.after(button);
  }
});
