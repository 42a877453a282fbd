// Preview of spec 2/7: images, playable video (ranged URL, the player seeks with Range), PDF in the browser's
// viewer, plain text (first megabyte); anything else offers a download instead.
import { useEffect, useState } from 'react';
import { Button, Modal, Result, Spin, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { getPreview } from '../../api/gen/download/download.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { previewKind, TEXT_PREVIEW_BYTES } from './preview.ts';
import { errorMessage, LocalizedError } from '../../shared/error-message.ts';

export function PreviewDialog({ item, onClose, onDownload }: { item: Instance | undefined; onClose: () => void; onDownload: (i: Instance) => void }) {
  const { t } = useTranslation();
  const [url, setUrl] = useState<string | undefined>();
  const [text, setText] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const kind = previewKind(item?.fType);

  useEffect(() => {
    setUrl(undefined);
    setText(undefined);
    setError(undefined);
    if (!item || kind === 'none') return;
    const ctrl = new AbortController();
    (async () => {
      const res = await getPreview({ instanceId: item.instanceId }, { signal: ctrl.signal, quiet: true });
      const u = res.data?.url;
      if (!u) throw new LocalizedError('files.previewFailed');
      if (kind === 'text') {
        const body = await fetch(u, { headers: { Range: `bytes=0-${TEXT_PREVIEW_BYTES - 1}` }, signal: ctrl.signal });
        if (!body.ok) throw new LocalizedError('files.previewFailed');
        setText(new TextDecoder().decode(await body.arrayBuffer()));
      } else setUrl(u);
    })().catch((err: unknown) => {
      if (!ctrl.signal.aborted) setError(errorMessage(err));
    });
    return () => ctrl.abort();
  }, [item, kind, t]);

  let body;
  if (!item) body = null;
  else if (kind === 'none')
    body = (
      <Result
        status="info"
        title={t('files.noPreview')}
        extra={
          <Button type="primary" onClick={() => onDownload(item)}>
            {t('files.download')}
          </Button>
        }
      />
    );
  else if (error) body = <Result status="error" title={error} />;
  else if (kind === 'text' && text !== undefined)
    body = (
      <pre style={{ maxHeight: '65vh', overflow: 'auto', whiteSpace: 'pre-wrap' }} data-testid="preview-text">
        {text}
      </pre>
    );
  else if (!url) body = <Spin />;
  else if (kind === 'image') body = <img src={url} alt={item.instanceName} style={{ maxWidth: '100%', maxHeight: '70vh' }} data-testid="preview-image" />;
  else if (kind === 'video') body = <video src={url} controls style={{ width: '100%', maxHeight: '70vh' }} data-testid="preview-video" />;
  else body = <iframe src={url} title={item.instanceName} style={{ width: '100%', height: '70vh', border: 0 }} data-testid="preview-pdf" />;

  return (
    <Modal open={item !== undefined} title={<Typography.Text ellipsis>{item?.instanceName}</Typography.Text>} onCancel={onClose} footer={null} width={900} destroyOnHidden>
      {body}
    </Modal>
  );
}
