// Preview of spec 2/7: images, playable video (ranged URL, the player seeks with Range), PDF in the browser's
// viewer, plain text (first megabyte) and Markdown rendered (markdown.tsx); anything else offers a download instead.
// Previous and next step through the folder's previewable files (buttons or the arrow keys), images zoom.
import { useEffect, useState } from 'react';
import { Button, Modal, Result, Space, Spin, Typography } from 'antd';
import { LeftOutlined, RightOutlined, ZoomInOutlined, ZoomOutOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { getPreview } from '../../api/gen/download/download.ts';
import type { Instance } from '../../api/gen/model/instance.ts';
import { previewKind, TEXT_PREVIEW_BYTES } from './preview.ts';
import { errorMessage, LocalizedError } from '../../shared/error-message.ts';
import { Markdown } from './markdown.tsx';
import './strings.ts';

const ZOOM_STEPS = [0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4];

export function PreviewDialog({
  item,
  onClose,
  onDownload,
  siblings,
  onNavigate,
}: {
  item: Instance | undefined;
  onClose: () => void;
  onDownload: (i: Instance) => void;
  /** The files of the folder on screen, in its order: previous and next step through the previewable ones. */
  siblings?: readonly Instance[];
  onNavigate?: (i: Instance) => void;
}) {
  const { t } = useTranslation();
  const [zoom, setZoom] = useState(3);
  const steps = (siblings ?? []).filter((s) => s.classifierId === 'File' && previewKind(s.fType) !== 'none');
  const at = item ? steps.findIndex((s) => s.instanceId === item.instanceId) : -1;
  const prev = at > 0 ? steps[at - 1] : undefined;
  const next = at >= 0 && at < steps.length - 1 ? steps[at + 1] : undefined;
  const go = (to: Instance | undefined) => {
    if (!to || !onNavigate) return;
    setZoom(3);
    onNavigate(to);
  };
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

  // The arrow keys step through the folder, as in the anchor systems' viewers (a video's own seeking keeps them).
  useEffect(() => {
    if (!item) return;
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement | null)?.closest('input, textarea, video')) return;
      if (e.key === 'ArrowLeft') go(prev);
      else if (e.key === 'ArrowRight') go(next);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

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
  else if (kind === 'text' && text !== undefined && item.fType?.toLowerCase() === 'md') body = <Markdown source={text} />;
  else if (kind === 'text' && text !== undefined)
    body = (
      <pre style={{ maxHeight: '65vh', overflow: 'auto', whiteSpace: 'pre-wrap' }} data-testid="preview-text">
        {text}
      </pre>
    );
  else if (!url) body = <Spin />;
  else if (kind === 'image')
    body = (
      <div style={{ maxHeight: '70vh', overflow: 'auto', textAlign: 'center' }}>
        <img
          src={url}
          alt={item.instanceName}
          style={ZOOM_STEPS[zoom] === 1 ? { maxWidth: '100%', maxHeight: '70vh' } : { width: `${ZOOM_STEPS[zoom]! * 100}%` }}
          data-testid="preview-image"
          data-zoom={ZOOM_STEPS[zoom]}
        />
      </div>
    );
  else if (kind === 'video') body = <video src={url} controls style={{ width: '100%', maxHeight: '70vh' }} data-testid="preview-video" />;
  else body = <iframe src={url} title={item.instanceName} style={{ width: '100%', height: '70vh', border: 0 }} data-testid="preview-pdf" />;

  const footer = (
    <Space wrap>
      {kind === 'image' && (
        <>
          <Button icon={<ZoomOutOutlined />} disabled={zoom === 0} onClick={() => setZoom(zoom - 1)} aria-label={t('filesDaily.zoomOut')} data-testid="preview-zoom-out" />
          <Button onClick={() => setZoom(3)} data-testid="preview-zoom-reset">
            {t('filesDaily.zoomReset')}
          </Button>
          <Button icon={<ZoomInOutlined />} disabled={zoom === ZOOM_STEPS.length - 1} onClick={() => setZoom(zoom + 1)} aria-label={t('filesDaily.zoomIn')} data-testid="preview-zoom-in" />
        </>
      )}
      {steps.length > 1 && (
        <>
          <Button icon={<LeftOutlined />} disabled={!prev} onClick={() => go(prev)} data-testid="preview-prev">
            {t('filesDaily.prev')}
          </Button>
          <Button disabled={!next} onClick={() => go(next)} data-testid="preview-next">
            {t('filesDaily.next')} <RightOutlined />
          </Button>
        </>
      )}
    </Space>
  );
  return (
    <Modal
      open={item !== undefined}
      title={<Typography.Text ellipsis>{item?.instanceName}</Typography.Text>}
      onCancel={onClose}
      footer={footer}
      width={900}
      destroyOnHidden
    >
      {body}
    </Modal>
  );
}
