// New-folder and rename dialog: the spec 5 name rules are shown while typing, so nothing invalid is ever sent.
import { useEffect, useState } from 'react';
import { Input, Modal, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { nameProblem } from '../../shared/format.ts';
import { errorMessage } from '../../shared/error-message.ts';

export interface NameDialogProps {
  open: boolean;
  title: string;
  initial: string;
  onSubmit: (name: string) => Promise<void>;
  onClose: () => void;
}

export function NameDialog({ open, title, initial, onSubmit, onClose }: NameDialogProps) {
  const { t } = useTranslation();
  const [value, setValue] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [serverError, setServerError] = useState<string | undefined>();
  useEffect(() => {
    if (open) {
      setValue(initial);
      setServerError(undefined);
    }
  }, [open, initial]);
  const problem = nameProblem(value);
  const submit = async () => {
    if (problem || busy) return;
    setBusy(true);
    try {
      await onSubmit(value);
      onClose();
    } catch (err) {
      setServerError(errorMessage(err, { name: value }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open={open}
      title={title}
      onCancel={onClose}
      onOk={submit}
      okButtonProps={{ disabled: problem !== null, loading: busy, 'data-testid': 'name-dialog-ok' } as never}
      okText={t('files.ok')}
      cancelText={t('files.cancel')}
      destroyOnHidden
    >
      <Input
        autoFocus
        value={value}
        onChange={(e) => {
          setValue(e.target.value);
          setServerError(undefined);
        }}
        onPressEnter={submit}
        status={problem ? 'error' : undefined}
        aria-label={t('files.name')}
        data-testid="name-dialog-input"
        maxLength={255}
      />
      <Typography.Paragraph type={problem ? 'danger' : 'secondary'} style={{ marginTop: 8, marginBottom: 0 }} data-testid="name-dialog-rule">
        {problem ? t(`files.nameProblem.${problem}`) : t('files.nameRules')}
      </Typography.Paragraph>
      {serverError && (
        <Typography.Paragraph type="danger" style={{ marginBottom: 0 }} data-testid="name-dialog-error">
          {serverError}
        </Typography.Paragraph>
      )}
    </Modal>
  );
}
