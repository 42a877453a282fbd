// The browser's own <select> in antd's look, for the selects drawn on the files screen's first paint (issue #22
// weight): antd's Select brought its virtual list, search and popup machinery, 22 KB of JS gzip, for a handful of
// fixed options. Colours and sizes come from the theme's tokens, so it follows ConfigProvider like antd's own; the
// native control also gives the keyboard and screen readers what they expect of a select for free.
import type { CSSProperties, ReactNode } from 'react';
import { theme } from 'antd';
import './native-select.css';

export interface NativeOption<V extends string | number> {
  value: V;
  label: string;
}

export interface NativeSelectProps<V extends string | number> {
  value: V | undefined;
  options: readonly NativeOption<V>[];
  onChange: (value: V | undefined) => void;
  /** Shown while nothing is chosen; with allowClear it is also the option that clears the choice. */
  placeholder?: string;
  allowClear?: boolean;
  size?: 'small' | 'middle';
  /** Drawn at the end instead of the arrow (antd's suffixIcon); the arrow's place keeps it clear of the text. */
  suffix?: ReactNode;
  style?: CSSProperties;
  className?: string;
  'aria-label'?: string;
  'data-testid'?: string;
}

export function NativeSelect<V extends string | number>({ value, options, onChange, placeholder, allowClear, size = 'middle', suffix, style, className, ...aria }: NativeSelectProps<V>) {
  const { token } = theme.useToken();
  const empty = value === undefined;
  const colours = {
    '--ns-bg': token.colorBgContainer,
    '--ns-border': token.colorBorder,
    '--ns-hover': token.colorPrimaryHover,
    '--ns-focus': token.colorPrimary,
    '--ns-outline': token.controlOutline,
    '--ns-text': token.colorText,
    '--ns-placeholder': token.colorTextPlaceholder,
    '--ns-radius': `${size === 'small' ? token.borderRadiusSM : token.borderRadius}px`,
    '--ns-height': `${size === 'small' ? token.controlHeightSM : token.controlHeight}px`,
    '--ns-font-size': `${token.fontSize}px`,
  } as CSSProperties;
  return (
    <span className={`hcs-ns${empty ? ' hcs-ns-empty' : ''}${suffix ? ' hcs-ns-suffixed' : ''}${className ? ` ${className}` : ''}`} style={{ ...colours, ...style }}>
      <select
        {...aria}
        value={empty ? '' : String(value)}
        onChange={(e) => onChange(options.find((o) => String(o.value) === e.target.value)?.value)}
      >
        {/* Without allowClear the placeholder only shows until a choice is made, as antd's does. */}
        {(empty || allowClear) && placeholder !== undefined && (
          <option value="" disabled={!allowClear}>
            {placeholder}
          </option>
        )}
        {options.map((o) => (
          <option key={o.value} value={String(o.value)}>
            {o.label}
          </option>
        ))}
      </select>
      {suffix && (
        <span className="hcs-ns-suffix" aria-hidden>
          {suffix}
        </span>
      )}
    </span>
  );
}
