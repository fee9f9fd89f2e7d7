import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editBody, generationBody, IMAGES, mapImagesFailure, type PictureRequest } from '../../../src/engines/image-trace/images-api.ts';
import { UpstreamError } from '../../../src/engines/upstream/exchange.ts';

const request: PictureRequest = {
  model: 'gpt-image-1',
  prompt: 'a fox',
  n: 2,
  size: '1024x1024',
  quality: 'low',
  transparent: true,
  partialImages: 0,
  extraBody: { moderation: 'low', model: 'overridden' },
};

describe('the Images API as servers speak it', () => {
  it('reads a JSON answer: pictures as b64_json or url, in order, and usage', () => {
    const delta = IMAGES.json({ created: 1, data: [{ b64_json: 'AAAA' }, { url: 'http://h/x.png' }], usage: { input_tokens: 12, output_tokens: 2112, total_tokens: 2124 } });
    assert.deepEqual(delta, { pictures: [{ b64: 'AAAA' }, { url: 'http://h/x.png' }], usage: { inputTokens: 12, outputTokens: 2112 } });
    assert.equal(IMAGES.isToken(delta), true);
    assert.equal(IMAGES.meter()(delta), 4 + 'http://h/x.png'.length);
  });

  it('reads streamed events: partial pictures, the completed one with usage; unknown events are skipped', () => {
    assert.deepEqual(IMAGES.chunk({ type: 'image_generation.partial_image', b64_json: 'BBBB', partial_image_index: 0 }), { partial: 'BBBB' });
    assert.deepEqual(IMAGES.chunk({ type: 'image_edit.completed', b64_json: 'CCCC', usage: { input_tokens: 1, output_tokens: 2 } }), {
      pictures: [{ b64: 'CCCC' }],
      usage: { inputTokens: 1, outputTokens: 2 },
    });
    assert.deepEqual(IMAGES.chunk({ type: 'vendor.keepalive' }), {});
  });

  it('takes an answer without pictures, or with a picture of neither kind, as malformed; an error frame as a frame', () => {
    const kind = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return (error as UpstreamError).failure.kind;
      }
      return 'none';
    };
    assert.equal(kind(() => IMAGES.json({ data: [] })), 'malformed');
    assert.equal(kind(() => IMAGES.json({ data: [{ revised_prompt: 'x' }] })), 'malformed');
    assert.equal(kind(() => IMAGES.json('<html>')), 'malformed');
    assert.equal(kind(() => IMAGES.chunk({ type: 'error', error: { message: 'boom', code: 'server_error' } })), 'frame');
  });

  it('writes the generation body with the entry\'s fields; extra_body never overrides them', () => {
    assert.deepEqual(generationBody(request), { moderation: 'low', model: 'gpt-image-1', prompt: 'a fox', n: 2, size: '1024x1024', quality: 'low', background: 'transparent' });
    assert.deepEqual(generationBody({ ...request, transparent: false, quality: undefined, partialImages: 2, responseFormat: 'b64_json', outputFormat: 'webp' }), {
      moderation: 'low',
      model: 'gpt-image-1',
      prompt: 'a fox',
      n: 2,
      size: '1024x1024',
      output_format: 'webp',
      response_format: 'b64_json',
      stream: true,
      partial_images: 2,
    });
  });

  it('writes the edits body as a multipart form the platform\'s own parser reads: fields as text, pictures as files', async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
    const body = await editBody(request, [{ bytes: png, mediaType: 'image/png' }]);
    assert.match(body.contentType, /^multipart\/form-data; boundary=/);
    const form = await new Response(body.encoded, { headers: { 'content-type': body.contentType } }).formData();
    assert.equal(form.get('prompt'), 'a fox');
    assert.equal(form.get('n'), '2');
    assert.equal(form.get('background'), 'transparent');
    const file = form.get('image') as File;
    assert.equal(file.type, 'image/png');
    assert.deepEqual(new Uint8Array(await file.arrayBuffer()), png);
    const two = await editBody(request, [{ bytes: png, mediaType: 'image/png' }, { bytes: png, mediaType: 'image/jpeg' }]);
    const both = await new Response(two.encoded, { headers: { 'content-type': two.contentType } }).formData();
    assert.equal(both.getAll('image[]').length, 2);
  });

  it('maps a refusal by the safety system to 403 content_policy_violation, and other failures as the chat engine does', () => {
    const status = (code: number, detail: string, errorCode?: string) => new UpstreamError({ kind: 'status', status: code, detail, ...(errorCode ? { code: errorCode } : {}) });
    assert.equal(mapImagesFailure(status(400, 'Your request was rejected by the safety system.', 'moderation_blocked')).error.code, 'content_policy_violation');
    assert.equal(mapImagesFailure(status(400, 'rejected', 'content_policy_violation')).error.code, 'content_policy_violation');
    assert.equal(mapImagesFailure(new UpstreamError({ kind: 'frame', detail: 'Rejected by moderation (moderation_blocked)' })).error.code, 'content_policy_violation');
    assert.equal(mapImagesFailure(status(400, "Invalid size '999x999'")).error.code, 'model_error');
    assert.equal(mapImagesFailure(status(429, 'slow down')).error.code, 'model_unavailable');
    assert.equal(mapImagesFailure(new UpstreamError({ kind: 'deadline' })).error.code, 'request_timeout');
  });
});
