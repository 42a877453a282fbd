// The local agent's unfinished transfers after it was lost (killed, or its connection and the spec's retries gone):
// each may be continued in the browser. A download starts again here; an upload needs its file picked again, and the
// row says beforehand, and once picked, whether the parts the agent stored are reused or the file goes from the start.
// A folder upload needs the folder picked again, and its tree is rebuilt in the same place.
// Loaded only when an agent is lost, so its code and strings stay out of every page's bundle.
import { useRef } from 'react';
import { Button, Space, Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { addStrings } from '../../shared/page-strings.ts';
import { formatSize } from '../../shared/format.ts';
import { toastError, toastInfo } from '../../shared/notify.ts';
import type { AgentJob } from '../../shared/transfers/agent-client.ts';
import { continueDownloadInBrowser, continueFolderInBrowser, continueUploadInBrowser, isFolderJob, mayResume } from '../../shared/transfers/agent-continue.ts';
import { usePrompts } from '../../shared/transfers/use-prompts.tsx';
import zhCN from './agent-lost.zh_CN.json';
import enUS from './agent-lost.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });

function LostUpload({ job }: { job: AgentJob }) {
  const { t } = useTranslation();
  const input = useRef<HTMLInputElement>(null);
  const prompts = usePrompts();
  const folder = isFolderJob(job);
  return (
    <>
      {prompts.holder}
      <Button size="small" type="primary" onClick={() => input.current?.click()} data-testid={`agent-continue-upload-${job.name}`}>
        {t(folder ? 'transferAgentLost.chooseFolder' : 'transferAgentLost.chooseFile')}
      </Button>
      <input
        ref={input}
        type="file"
        multiple={job.files > 1}
        style={{ display: 'none' }}
        data-testid={`agent-continue-input-${job.name}`}
        {...(folder ? ({ webkitdirectory: '', directory: '' } as Record<string, string>) : {})}
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length === 0) return;
          if (folder) {
            void continueFolderInBrowser(job, files, prompts.upload).then((r) => {
              if ('queued' in r) toastInfo(t('transferAgentLost.tree', { name: job.name }));
            });
            return;
          }
          const how = continueUploadInBrowser(job, files);
          toastInfo(t(how === 'resume' ? 'transferAgentLost.resumed' : 'transferAgentLost.afresh', { name: files.length === 1 ? files[0]!.name : job.name }));
        }}
      />
    </>
  );
}

export default function AgentLost({ jobs }: { jobs: readonly AgentJob[] }) {
  const { t } = useTranslation();
  return (
    <div data-testid="agent-lost" style={{ marginBottom: 8 }}>
      <Typography.Text type="danger" strong>
        {t('transferAgentLost.title')}
      </Typography.Text>
      <Typography.Paragraph type="secondary" style={{ marginBottom: 8 }}>
        {t('transferAgentLost.hint')}
      </Typography.Paragraph>
      {jobs.map((job) => (
        <div key={job.id} data-testid={`agent-lost-${job.kind}-${job.name}`} style={{ marginBottom: 6 }}>
          <Space size={8} wrap>
            <Tag color="error">{t('transferAgentLost.state')}</Tag>
            <Typography.Text>{job.name}</Typography.Text>
            <Typography.Text type="secondary">{`${formatSize(job.bytesDone)} / ${formatSize(job.bytes)}`}</Typography.Text>
            {job.kind === 'download' ? (
              <Button
                size="small"
                type="primary"
                data-testid={`agent-continue-download-${job.name}`}
                onClick={() => void continueDownloadInBrowser(job).catch(() => toastError(t('transferAgentLost.failed')))}
              >
                {t('transferAgentLost.continueDownload')}
              </Button>
            ) : (
              <LostUpload job={job} />
            )}
          </Space>
          {job.kind === 'upload' && (
            <div>
              <Typography.Text type="secondary" data-testid={`agent-lost-how-${job.name}`} data-resume={isFolderJob(job) ? 'tree' : mayResume(job) ? 'resume' : 'afresh'}>
                {isFolderJob(job)
                  ? t('transferAgentLost.treeHint', { name: job.name })
                  : mayResume(job)
                    ? t('transferAgentLost.resumeHint', { size: formatSize(job.bytesDone) })
                    : t('transferAgentLost.afreshHint')}
              </Typography.Text>
            </div>
          )}
        </div>
      ))}
    </div>
  );
}
