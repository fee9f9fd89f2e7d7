// Files chosen or dropped on the page, read as base64 (the API's `base64` input fields).

/** Base64 of a file's bytes, without the `data:…;base64,` prefix FileReader adds. */
export function fileToBase64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** Base64 of text as UTF-8 (btoa alone only takes Latin-1). */
export function textToBase64(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * The vectorize drop zone: a file dropped on it or chosen through it becomes the image to send,
 * previewed through a blob URL. `current()` is `{ name, type, size, base64 }` or null.
 */
export function imageDropZone({ zone, input, preview, nameLabel, clearButton, onError }) {
  let image = null;
  let previewUrl = null;
  const empty = zone.querySelector('.dropzone-empty');
  const chosen = zone.querySelector('.dropzone-chosen');

  const show = () => {
    if (previewUrl) URL.revokeObjectURL(previewUrl);
    previewUrl = null;
    empty.hidden = image !== null;
    chosen.hidden = image === null;
    clearButton.hidden = image === null;
    if (!image) {
      preview.removeAttribute('src');
      return;
    }
    nameLabel.textContent = `${image.name} · ${Math.max(1, Math.round(image.size / 1024))} KB`;
  };

  const take = async (file) => {
    if (!file) return;
    try {
      const base64 = await fileToBase64(file);
      image = { name: file.name, type: file.type, size: file.size, base64 };
      show();
      previewUrl = URL.createObjectURL(file);
      preview.src = previewUrl;
    } catch (error) {
      onError(error);
    }
  };

  input.addEventListener('change', () => void take(input.files?.[0]));
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('dragging');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('dragging'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('dragging');
    void take(event.dataTransfer?.files?.[0]);
  });
  clearButton.addEventListener('click', () => {
    image = null;
    input.value = '';
    show();
  });

  return {
    current: () => image,
    /** For scripts and tests: use this file as if it had been dropped. */
    take,
  };
}
