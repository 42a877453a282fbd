// This screen's strings load with it, not with every page (shared/page-strings.ts).
import { addStrings } from '../../shared/page-strings.ts';
import zhCN from './strings.zh_CN.json';
import enUS from './strings.en_US.json';

addStrings({ zh_CN: zhCN, en_US: enUS });
