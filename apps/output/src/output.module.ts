import { Module } from '@nestjs/common';
import { OutputHandlers } from './output.handlers';
import { OutputWriter } from './output-writer';

@Module({ controllers: [OutputHandlers], providers: [OutputWriter] })
export class OutputModule {}
