// Home (spec 2): the four-slide banner and the business-library strip, 4 per page with previous/next arrows.
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { useQueryClient } from '@tanstack/react-query';
import { Button, Card, Carousel, Empty, Spin, Typography } from 'antd';
import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import { useTranslation } from 'react-i18next';
import { useListBusinessLibs } from '../../api/gen/libraries/libraries.ts';
import type { MenuItem } from '../../api/gen/model/index.ts';
import { openLibrary } from '../../shared/libraries.ts';
import { iconFor } from '../../shared/icons.tsx';

export const HOME_LIBS_PER_PAGE = 4;
const SLIDES = ['simpleConfiguration', 'intelligentCollaboration', 'multiTerminalBackup', 'dataSecurity'] as const;
const SLIDE_COLORS = ['#7a0b1c', '#1f1f1f', '#a3122a', '#2b2b2b'];

export default function HomePage() {
  const { t, i18n } = useTranslation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const libs = useListBusinessLibs({ isShow: 1, isHome: 1 });
  const [page, setPage] = useState(0);
  const list = libs.data?.data ?? [];
  const pages = Math.max(1, Math.ceil(list.length / HOME_LIBS_PER_PAGE));
  const current = Math.min(page, pages - 1);
  const visible = list.slice(current * HOME_LIBS_PER_PAGE, (current + 1) * HOME_LIBS_PER_PAGE);
  const title = (m: MenuItem) => (i18n.language === 'en_US' ? m.menuName : m.menuStr) || m.menuName;

  return (
    <div className="hcs-home" data-testid="home">
      <Carousel autoplay autoplaySpeed={5000} dots>
        {SLIDES.map((s, i) => (
          <div key={s}>
            <div style={{ height: 220, background: SLIDE_COLORS[i], color: '#fff', padding: '48px 64px' }} data-testid={`slide-${s}`}>
              <Typography.Title level={2} style={{ color: '#fff' }}>
                {t(`home.slides.${s}.title`)}
              </Typography.Title>
              <Typography.Paragraph style={{ color: 'rgba(255,255,255,0.85)', fontSize: 16 }}>{t(`home.slides.${s}.text`)}</Typography.Paragraph>
            </div>
          </div>
        ))}
      </Carousel>
      <Typography.Title level={4} style={{ marginTop: 24 }}>
        {t('home.libraries')}
      </Typography.Title>
      {libs.isLoading ? (
        <Spin />
      ) : list.length === 0 ? (
        <Empty description={t('home.noLibraries')} />
      ) : (
        <div style={{ display: 'flex', alignItems: 'center', gap: 12 }}>
          <Button shape="circle" icon={<LeftOutlined />} aria-label={t('home.previous')} disabled={current === 0} onClick={() => setPage(current - 1)} data-testid="libs-prev" />
          <div style={{ flex: 1, display: 'grid', gridTemplateColumns: `repeat(${HOME_LIBS_PER_PAGE}, 1fr)`, gap: 16 }}>
            {visible.map((lib) => (
              <Card
                key={lib.libCode}
                hoverable
                data-testid={`lib-${lib.libCode}`}
                onClick={() => void openLibrary(lib.libCode, { queryClient, navigate, title }).catch(() => {})}
              >
                <Card.Meta avatar={iconFor(lib.webIcon)} title={i18n.language === 'en_US' ? lib.libNameEn || lib.libCode : lib.libName} description={lib.libCode} />
              </Card>
            ))}
          </div>
          <Button
            shape="circle"
            icon={<RightOutlined />}
            aria-label={t('home.next')}
            disabled={current >= pages - 1}
            onClick={() => setPage(current + 1)}
            data-testid="libs-next"
          />
        </div>
      )}
    </div>
  );
}
